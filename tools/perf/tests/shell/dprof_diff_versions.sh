#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: diff matches rows across two versions of a program
#
# versions.c allocates three types of heap objects, each at a site of its
# own.  Version A is built from it as it is, version B from it with ten
# lines added at the top (every site's line moves, as any edit above them
# does) and struct alpha touched four times as often.  perf dprof diff
# must match each heap row of A with B's (no row only in A or only in B),
# and rank struct alpha first (its heap row or the row of the operands
# that point into its objects: both grow), marked, growing; at most one
# row of another type may be marked, as the 95% family-wise bound
# allows.  With a second recording of each version (A1 A2 -- B1 B2) the
# variance is between the recordings, never below each side's own, and
# struct alpha still ranks first.

set -u

err=0
dprof_test="dprof diff versions test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_diff_versions

dprof_user_need_dwarf
command -v python3 >/dev/null || skip "no python3 to read --json"
# the program keeps its name from version to version: a/versions, b/versions
mkdir -p "${dir}/a" "${dir}/b"
cp "${src}/versions.c" "${dir}/a/versions.c"
{ printf '/* version B */\n%.0s' $(seq 10); cat "${src}/versions.c"; } > "${dir}/b/versions.c"
if ! gcc -O1 -g -fno-inline -o "${dir}/a/versions" "${dir}/a/versions.c" 2> "${dir}/cc.err" ||
   ! gcc -O1 -g -fno-inline -o "${dir}/b/versions" "${dir}/b/versions.c" 2>> "${dir}/cc.err"; then
	echo "${dprof_test} [Failed: build]"
	cat "${dir}/cc.err"
	exit 1
fi

for run in "a 1" "b 4" "a2 1" "b2 4"; do
	set -- ${run}
	if ! perf dprof record --sampler=soft --no-kmem -c 20000 -o "${dir}/$1.data" \
			-- "${dir}/${1:0:1}/versions" 1000 400 "$2" > "${dir}/rec.out" 2>&1; then
		echo "${dprof_test} [Failed: record $1]"
		cat "${dir}/rec.out"
		exit 1
	fi
done
if ! perf dprof diff --json "${dir}/a.data" "${dir}/b.data" > "${dir}/a-b.json" \
		2> "${dir}/diff.err" ||
   ! perf dprof diff "${dir}/a.data" "${dir}/b.data" > "${dir}/a-b.txt" 2>> "${dir}/diff.err" ||
   ! perf dprof diff --json "${dir}/a.data" "${dir}/a2.data" -- "${dir}/b.data" "${dir}/b2.data" \
		> "${dir}/runs.json" 2>> "${dir}/diff.err"; then
	echo "${dprof_test} [Failed: diff: $(cat "${dir}/diff.err")]"
	exit 1
fi

python3 - "${dir}/a-b.json" "${dir}/runs.json" <<'PY' || err=1
import json, sys

d = json.load(open(sys.argv[1]))
runs = json.load(open(sys.argv[2]))
types = d["types"]
heap = [t for t in types if t["desc"].startswith("heap ") and t["type"] in
        ("struct alpha", "struct beta", "struct gamma")]
bad = []
names = sorted(t["type"] for t in heap)
if names != ["struct alpha", "struct beta", "struct gamma"]:
    bad.append("heap rows %s, not one each of alpha, beta, gamma" % names)
for t in heap:
    if not t["rows_a"] or not t["rows_b"]:
        bad.append("%s %s only in %s" % (t["type"], t["desc"], "B" if t["rows_b"] else "A"))
first = types[0] if types else None
if not first or first["type"] != "struct alpha" or not first["significant"] or first["z"] <= 0:
    bad.append("first: %s" % (first and "%s %s z %+.1f %s" % (first["type"], first["desc"],
               first["z"], "marked" if first["significant"] else "unmarked")))
others = [t for t in types if t["significant"] and t["type"] != "struct alpha"]
if len(others) > 1:
    bad.append("%d other rows marked: %s" % (len(others), ", ".join(
        "%s %+.1f" % (t["type"], t["z"]) for t in others)))
if (runs["share_variance"] != "between_runs" or runs["recordings_a"] != 2 or
        runs["recordings_b"] != 2 or runs["df"] != 2):
    bad.append("A1 A2 -- B1 B2: variance %s over %s and %s recordings, df %s" % (
        runs["share_variance"], runs["recordings_a"], runs["recordings_b"], runs["df"]))
elif not runs["types"] or runs["types"][0]["type"] != "struct alpha" or runs["types"][0]["z"] <= 0:
    bad.append("A1 A2 -- B1 B2: first %s" % (runs["types"] and runs["types"][0]["type"]))
print("dprof diff versions test: first %s z %+.1f; %d other rows marked" %
      (first["type"] if first else "-", first["z"] if first else 0, len(others)))
for b in bad:
    print("dprof diff versions test [Failed: %s]" % b)
sys.exit(1 if bad else 0)
PY

if [ ${err} -ne 0 ]; then
	cat "${dir}/a-b.txt"
else
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
