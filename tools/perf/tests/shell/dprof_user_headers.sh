#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user objects as what they are, and types over their sites
#
# header.c's objects are reached through a header their type begins with:
# a common initial sequence a macro gives struct table and struct str (a
# collector walks them as struct obj), and a struct base that struct
# widget embeds first.  The header's accesses must count for the object's
# type: no struct obj row at new_table's or new_str's site, no struct base
# row, the header's members among the object's, the header said in
# --json's "headers" and in --type's "accessed as" line, and --type=obj
# opening the types it was counted in.  new_any() hands out both types from
# one call site: its struct obj row stays, tied to neither.  struct vec is
# allocated at three sites: one type row over three site rows, its share
# their sum, --type=vec shows it whole, and --sort=site gives the three
# rows of before.

set -u

err=0
dprof_test="dprof user headers test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_headers

dprof_user_need_dwarf
command -v python3 > /dev/null || skip "no python3 to read the --json output"
dprof_user_build header -fno-inline

dprof_user_record h -- "${dir}/header" 2000 3 || exit 1
{
	perf dprof report --json -i "${dir}/h.data" > "${dir}/h.json"
	perf dprof report --json --sort=site -i "${dir}/h.data" > "${dir}/site.json"
	perf dprof report --stdio --type=obj -i "${dir}/h.data" > "${dir}/obj.rep"
	perf dprof report --stdio --type=vec -i "${dir}/h.data" > "${dir}/vec.rep"
} 2> "${dir}/h.err"

if ! python3 - "${dir}/h.json" "${dir}/site.json" <<'PY'
import json, re, sys

grouped = json.load(open(sys.argv[1]))["types"]
by_site = json.load(open(sys.argv[2]))["types"]
bad = []

def rows(types):
    """every row: the types', and their sites' under them"""
    for t in types:
        yield t
        yield from t.get("sites", [])

def at(types, typ, func):
    return [r for r in rows(types) if r["type"] == typ and
            re.match(r"heap %s \(header\.c:\d+\)" % func, r["desc"])]

def members(r):
    return {m["name"] for m in r["members"] if m["samples"]}

for typ, func in (("struct table", "new_table"), ("struct str", "new_str")):
    r = at(grouped, typ, func)
    if len(r) != 1:
        bad.append("%s at %s: %d rows" % (typ, func, len(r)))
        continue
    # None: the site's untyped accesses, counted at their offsets
    heads = {h["type"] for h in r[0].get("headers", [])} - {None}
    if heads != {"struct obj"}:
        bad.append("%s at %s: headers %s" % (typ, func, sorted(heads)))
    if not members(r[0]) & {"tt", "marked", "next"}:
        bad.append("%s at %s: no header member in %s" % (typ, func, sorted(members(r[0]))))
    if at(grouped, "struct obj", func):
        bad.append("struct obj still a row at %s" % func)
w = at(grouped, "struct widget", "new_widget")
if len(w) != 1 or "b.refcnt" not in members(w[0]):
    bad.append("struct widget: no row with b.refcnt: %s" % [members(x) for x in w])
if any(r["type"] == "struct base" for r in rows(grouped)):
    bad.append("struct base is a row of its own")
if not at(grouped, "struct obj", "new_any"):
    bad.append("new_any's header, of two types, was given to one")

# struct vec: one type over its three sites
vec = [t for t in grouped if t["type"] == "struct vec"]
sites = vec[0].get("sites", []) if len(vec) == 1 else []
funcs = sorted(re.sub(r"heap (\w+) .*", r"\1", s["desc"]) for s in sites
               if s["desc"].startswith("heap "))
if funcs != ["new_vec_a", "new_vec_b", "new_vec_c"]:
    bad.append("struct vec: %d type rows, heap sites %s" % (len(vec), funcs))
elif abs(vec[0]["share"] - sum(s["share"] for s in sites)) > 0.01:
    bad.append("struct vec: share %.2f, its sites' %.2f" %
               (vec[0]["share"], sum(s["share"] for s in sites)))
flat = [t for t in by_site if t["type"] == "struct vec" and t["desc"].startswith("heap ")]
if len(flat) != 3 or any("sites" in t for t in by_site):
    bad.append("--sort=site: %d struct vec rows, nested sites %s" %
               (len(flat), any("sites" in t for t in by_site)))
# the untyped accesses to the tables, counted for struct table
heap = json.load(open(sys.argv[1]))["user_heap"]
if not 0 < heap["untyped_sited"] <= sum(heap["untyped"].values()):
    bad.append("untyped samples counted for a site's type: %s" % heap)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
then
	echo "${dprof_test} [Failed: rows (above)]"
	head -5 "${dir}/h.err"
	err=1
fi

# --type=obj: the types its accesses were counted in, saying so
for typ in "struct table" "struct str"; do
	desc='( new_[a-z]+ \(header\.c:[0-9]+\)|: [0-9] sites?[a-z, ]*)'
	if ! grep -qE "^# ${typ} \(heap${desc}\): " "${dir}/obj.rep"; then
		echo "${dprof_test} [Failed: --type=obj does not open ${typ}]"
		err=1
	fi
done
if ! grep -qE '^# accessed as: struct (table|str) [0-9.]+%, struct obj [0-9.]+%[ ,]' \
		"${dir}/obj.rep"
then
	echo "${dprof_test} [Failed: --type=obj: no 'accessed as' line]"
	grep '^# ' "${dir}/obj.rep" | tail -5
	err=1
fi

# --type of a type over its sites: its members, all sites', under one title
title='^# struct vec \(heap: 3 sites(, operand)?\): [0-9]+ samples'
if [ "$(grep -cE "${title}" "${dir}/vec.rep")" != 1 ] ||
   grep -qE '^# struct vec \(heap new_vec' "${dir}/vec.rep"; then
	echo "${dprof_test} [Failed: --type=vec is not the type over its three sites]"
	grep '^# struct vec' "${dir}/vec.rep"
	err=1
fi

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
