#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: report --json parses and agrees with --stdio on the same file
#
# A recording synthesized as an AMD IBS machine would write it ('perf test
# -w dprof_cachemodel'): for the profile, classify and workingset views,
# the JSON document must parse (python3), name the view, and give every
# type the --stdio table shows with the same numbers (samples share,
# objects, misses, miss classes, resident objects).

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_json.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

skip() {
	echo "dprof json test [Skipped: $*]"
	exit 2
}
command -v python3 >/dev/null || skip "no python3"
perf test -w dprof_cachemodel 2>&1 | grep -q SCENARIO ||
	skip "perf has no dprof_cachemodel workload"

data=$tmp/mixed.data
perf test -w dprof_cachemodel mixed 1 2 16384 7 ibs "$data" >/dev/null 2>&1 ||
	{ echo "dprof json test [Failed: cannot synthesize $data]"; exit 1; }

err=0
for view in profile classify workingset; do
	perf dprof report --stdio -i "$data" --view=$view > "$tmp/$view.txt" 2>"$tmp/$view.err" ||
		{ echo "--stdio --view=$view failed: $(cat "$tmp/$view.err")"; err=1; continue; }
	perf dprof report --json -i "$data" --view=$view > "$tmp/$view.json" 2>"$tmp/$view.err" ||
		{ echo "--json --view=$view failed: $(cat "$tmp/$view.err")"; err=1; continue; }
	python3 - "$view" "$tmp/$view.txt" "$tmp/$view.json" <<'PY' || err=1
import json, sys

view, txt, js = sys.argv[1:]
doc = json.load(open(js))
bad = []
if doc.get("view") != view:
    bad.append("view is %r" % doc.get("view"))
types = {t["type"]: t for t in doc.get("types", [])}
# stdio rows: "  name  desc  numbers..." (not the headers)
rows = [l.split() for l in open(txt) if l.startswith("  dm_")]
if not rows:
    bad.append("no dm_ rows in the --stdio output")
for r in rows:
    t = types.get(r[0])
    if t is None:
        bad.append("%s: in --stdio, not in --json" % r[0])
        continue
    if view == "profile":
        # Type Cache Samples% +-95% Misses% AvgLat Sampled Objects ...
        if "%.2f%%" % t["share"] != r[2]:
            bad.append("%s: share %s vs %s" % (r[0], t["share"], r[2]))
        if not t["share_lo"] <= t["share"] <= t["share_hi"]:
            bad.append("%s: share %s outside [%s, %s]"
                       % (r[0], t["share"], t["share_lo"], t["share_hi"]))
        if "%.1f%%" % t["miss_share"] != r[4]:
            bad.append("%s: miss share %s vs %s" % (r[0], t["miss_share"], r[4]))
        if str(t["objects"]) != r[6]:
            bad.append("%s: objects %s vs %s" % (r[0], t["objects"], r[6]))
        if "%.0f" % t["objects_est"] != r[7].rstrip("?"):
            bad.append("%s: objects estimated %s vs %s" % (r[0], t["objects_est"], r[7]))
    elif view == "classify":
        # Type Cache Misses Miss% TrueSh FalseSh Conflct Capacty Unknown
        if str(t["misses"]) != r[2]:
            bad.append("%s: misses %s vs %s" % (r[0], t["misses"], r[2]))
        cls = ["true sharing", "false sharing", "conflict", "capacity", "unknown"]
        for k, c in enumerate(cls):
            if "%.1f%%" % t["classes"][c] != r[4 + k]:
                bad.append("%s: %s %s vs %s" % (r[0], c, t["classes"][c], r[4 + k]))
    else:
        # Type Cache Objects Bytes Share Seen Conflict
        if "%.1f" % t["objects"] != r[2]:
            bad.append("%s: objects %s vs %s" % (r[0], t["objects"], r[2]))
        if str(t["lines_seen"]) != r[5]:
            bad.append("%s: lines seen %s vs %s" % (r[0], t["lines_seen"], r[5]))
if len(types) != len(rows):
    bad.append("%d types in --json, %d rows in --stdio" % (len(types), len(rows)))
for b in bad:
    print("--view=%s: %s" % (view, b))
sys.exit(1 if bad else 0)
PY
done

if [ $err = 0 ]; then
	echo "dprof json test [Success: profile, classify and workingset agree with --stdio]"
else
	echo "dprof json test [Failed]"
fi
exit $err
