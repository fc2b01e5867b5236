#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: report --view=flame (folded stacks, SVG) and --pprof agree with --json
#
# On a recording synthesized as an AMD IBS machine would write it ('perf
# test -w dprof_cachemodel': misses and latency measured) and, where perf
# can record, one of 'perf test -w dprof_struct' with the software
# sampler: the folded stacks' counts per type are the profile's rows'
# samples (--json); the SVG parses as XML, its type frames' widths are the
# types' shares (to rounding) and its members' and functions' widths add
# up inside them; 'go tool pprof' (a consumer nobody here wrote) reads the
# --pprof file, and its per-type totals (-raw, and -top -tagfocus on the
# top type) are --json's.  A headless Chromium, if installed, renders the
# SVG to a PNG in the test's directory.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_flame.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

skip() {
	echo "dprof flame test [Skipped: $*]"
	exit 2
}
command -v python3 >/dev/null || skip "no python3"
perf test -w dprof_cachemodel 2>&1 | grep -q SCENARIO ||
	skip "perf has no dprof_cachemodel workload"

GO=$(command -v go || echo /usr/local/go/bin/go)
[ -x "$GO" ] || GO=
CHROME=$(command -v chromium || command -v chromium-browser ||
	 command -v google-chrome || true)

err=0
fail() {
	echo "FAIL: $*"
	err=1
}

# Everything about one recording; $1 the file, $2 a type it must have.
check() {
	local data=$1 want=$2 name top

	name=$(basename "$data" .data)
	perf dprof report -i "$data" --json > "$tmp/$name.json" 2>"$tmp/$name.err" ||
		{ fail "$name: --json"; cat "$tmp/$name.err"; return; }
	perf dprof report -i "$data" --view=flame --graph="$tmp/$name.svg" \
		> "$tmp/$name.folded" 2>"$tmp/$name.err" ||
		{ fail "$name: --view=flame"; cat "$tmp/$name.err"; return; }
	perf dprof report -i "$data" --pprof="$tmp/$name.pb.gz" > "$tmp/$name.pprof.out" \
		2>"$tmp/$name.err" || { fail "$name: --pprof"; cat "$tmp/$name.err"; return; }
	grep -q "^$want;" "$tmp/$name.folded" ||
		fail "$name: no stack of $want in the folded stacks"

	# folded stacks and SVG against the rows
	python3 - "$tmp/$name.json" "$tmp/$name.folded" "$tmp/$name.svg" <<'EOF' || err=1
import json, sys, xml.etree.ElementTree as ET
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
total = doc["samples"]
rows = defaultdict(int)
for t in doc["types"]:
    rows[t["type"] if t["type"] != "?" else t["desc"]] += t["samples"]

bad = 0
folded = defaultdict(int)
for line in open(sys.argv[2]):
    stack, count = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    if len(frames) != 3:
        print("FAIL: not type;member;function:", line.strip()); bad = 1
    folded[frames[0]] += int(count)
for t in set(rows) | set(folded):
    if rows[t] != folded[t]:
        print("FAIL: %s: %d samples in the rows, %d in the folded stacks"
              % (t, rows[t], folded[t])); bad = 1

ns = {"s": "http://www.w3.org/2000/svg"}
svg = ET.parse(sys.argv[3]).getroot()
frames = []
for g in svg.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "f":
        continue
    r = g.find("s:rect", ns)
    frames.append((int(g.get("data-level")), g.get("data-name"),
                   float(r.get("x")), float(r.get("width")), g.find("s:title", ns).text))
root = [f for f in frames if f[0] == 0]
if len(root) != 1:
    print("FAIL: %d root frames" % len(root)); sys.exit(1)
W = root[0][3]
# the width is the samples of the types shown (the root frame's)
root_n = [int(g.get("data-samples")) for g in svg.iter("{http://www.w3.org/2000/svg}g")
          if g.get("class") == "f" and g.get("data-level") == "0"][0]
# each type frame's width is its share (one frame per row: add a type's up)
share = defaultdict(float)
for lvl, nm, x, w, title in frames:
    if lvl == 1:
        share[nm.replace(" [bounce]", "")] += 100.0 * w / W * root_n / total
for t, n in rows.items():
    want = 100.0 * n / total
    if abs(share[t] - want) > 0.01 + 0.001 * want:
        print("FAIL: %s: SVG width %.3f%%, share %.3f%%" % (t, share[t], want)); bad = 1
# children inside their parent, and adding up to at most its width
def kids(level):
    return [f for f in frames if f[0] == level]
for lvl in (2, 3):
    for p in kids(lvl - 1):
        inside = [f for f in kids(lvl) if f[2] >= p[2] - 0.01 and f[2] + f[3] <= p[2] + p[3] + 0.02]
        s = sum(f[3] for f in inside)
        if s > p[3] + 0.02 * max(1, len(inside)):
            print("FAIL: level %d under %s: %.2f px in %.2f" % (lvl, p[1], s, p[3])); bad = 1
if not any("Bounce" in f[4] or "[bounce]" in f[1] for f in kids(1)) and \
   any(t.get("bounced_objects") for t in doc["types"]):
    print("FAIL: a type bounced, no frame says so"); bad = 1
title = "".join(svg.itertext())
if doc["access_samples"] and "access samples:" not in title:
    print("FAIL: the SVG does not say its sampler"); bad = 1
sys.exit(bad)
EOF

	if [ -z "$GO" ]; then
		echo "$name: go not installed: pprof file not read back"
		return
	fi
	# every type's total from -raw: a value line, then its labels
	"$GO" tool pprof -raw "$tmp/$name.pb.gz" > "$tmp/$name.raw" 2>"$tmp/$name.err" ||
		{ fail "$name: go tool pprof -raw"; cat "$tmp/$name.err"; return; }
	top=$(python3 - "$tmp/$name.json" "$tmp/$name.raw" <<'EOF'
import json, re, sys
from collections import defaultdict

doc = json.load(open(sys.argv[1]))
rows = defaultdict(int)
for t in doc["types"]:
    rows[t["type"] if t["type"] != "?" else t["desc"]] += t["samples"]
raw = open(sys.argv[2]).read()
types = re.search(r"^Samples:\n(.*)\n", raw, re.M).group(1).split()
want = ["samples/count[dflt]"]
if doc["misses_measured"]:
    want.append("misses/count")
if doc["latency_measured"]:
    want.append("latency/cycles")
bad = 0
if types != want:
    print("FAIL: sample types %s, want %s" % (types, want), file=sys.stderr); bad = 1
got = defaultdict(int)
val = None
for line in raw.split("Locations")[0].splitlines():
    m = re.match(r"^\s+(\d+)(\s+\d+)*: ", line)
    if m:
        val = int(m.group(1))
        continue
    m = re.search(r"type:\[(.*)\]\s*$", line)
    if m and val is not None:
        got[m.group(1)] += val
        val = None
for t in set(rows) | set(got):
    if rows[t] != got[t]:
        print("FAIL: %s: %d samples in --json, %d in pprof -raw" % (t, rows[t], got[t]),
              file=sys.stderr); bad = 1
top = max(rows, key=lambda t: rows[t])
print("%s\t%d" % (top, rows[top]))
sys.exit(bad)
EOF
	) || err=1
	[ -n "$top" ] || return
	# -top -tagfocus: the top type's total, as a regexp of its name
	local tname=${top%$'\t'*} tcount=${top##*$'\t'} re shown
	re=$(python3 -c 'import re, sys; print("^" + re.escape(sys.argv[1]) + "$")' "$tname")
	"$GO" tool pprof -top -nodefraction=0 -nodecount=1000000 -tagfocus="type=$re" \
		"$tmp/$name.pb.gz" > "$tmp/$name.top" 2>"$tmp/$name.err" ||
		{ fail "$name: go tool pprof -top -tagfocus"; cat "$tmp/$name.err"; return; }
	shown=$(sed -n 's/^Showing nodes accounting for \([0-9]*\),.*/\1/p' "$tmp/$name.top")
	[ "$shown" = "$tcount" ] ||
		fail "$name: pprof -tagfocus=type=$re: ${shown:-nothing}, --json: $tcount"
	echo "$name: pprof -top -tagfocus=type=$tname: $shown samples, as --json"

	if [ -n "$CHROME" ]; then
		# its console says what the inline script threw, if anything
		timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu \
			--enable-logging=stderr --v=0 \
			--screenshot="$tmp/$name.png" --window-size=1220,240 \
			"file://$tmp/$name.svg" >/dev/null 2>"$tmp/$name.chrome" &&
			[ -s "$tmp/$name.png" ] ||
			fail "$name: headless $CHROME did not render the SVG"
		if grep -q 'CONSOLE.*Uncaught' "$tmp/$name.chrome"; then
			fail "$name: the SVG's script: $(grep -m1 'CONSOLE' "$tmp/$name.chrome")"
		fi
		# the screenshot outlives the test
		mkdir -p /tmp/perf-dprof-flame && cp "$tmp/$name.png" /tmp/perf-dprof-flame/ &&
			echo "$name: screenshot /tmp/perf-dprof-flame/$name.png"
	fi
}

perf test -w dprof_cachemodel mixed 1 2 16384 7 ibs "$tmp/ibs.data" >/dev/null 2>&1 ||
	{ echo "dprof flame test [Failed: cannot synthesize $tmp/ibs.data]"; exit 1; }
check "$tmp/ibs.data" dm_private

if perf dprof record --sampler=soft --no-kmem -o "$tmp/soft.data" -- \
	perf test -w dprof_struct 1 >/dev/null 2>"$tmp/record.err"; then
	check "$tmp/soft.data" "struct dprof_hot"
else
	echo "no software-sampler recording (perf dprof record failed): the synthesized one only"
fi
[ -n "$GO" ] || echo "go not installed: --pprof written, not read back"
[ -n "$CHROME" ] || echo "no headless Chromium: the SVG is not rendered"

if [ $err -ne 0 ]; then
	echo "dprof flame test [Failed]"
	exit 1
fi
echo "dprof flame test [Success]"
exit 0
