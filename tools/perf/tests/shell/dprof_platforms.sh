#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: per-platform memory-PMU recordings, report vs perf script level by level
#
# 'perf test -w dprof_cachemodel' writes, for AMD Zen 2 and Zen 4 IBS,
# Intel Skylake-SP, Sapphire Rapids ({mem-loads-aux,mem-loads} group) and
# Alder Lake (cpu_core + cpu_atom) PEBS, the attrs, sample layout and
# data_src encodings the kernel produces there; for Arm Neoverse N1 SPE
# (and V2, which perf 6.12 decodes with the generic mapping) the AUX area
# records as the hardware writes them, which perf's arm-spe decoder
# (built on every architecture) turns into "memory" samples.
# For each, perf's own reader on the same file is the oracle: every
# access sample's data source as perf script -F data_src prints it ("|OP
# LOAD|LVL L3 hit|SNP HitM|..."), sorted into the report's levels by the
# words perf prints, must give the counts perf dprof report --json says
# it decoded, level by level, with the same HITM count, and the same
# total; perf mem report must count the same total, and the average of
# perf script's weights must be the report's average latency.  The profile's
# HITM% and Rmt% columns must be there exactly when perf script shows
# HITM or remote-node data, and never for the software sampler.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_platforms.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

if ! perf test -w dprof_cachemodel 2>&1 | grep -q PLATFORM; then
	echo "dprof platforms test [Skipped: perf has no per-platform dprof_cachemodel]"
	exit 2
fi
if ! python3 -c 'import json' 2>/dev/null; then
	echo "dprof platforms test [Skipped: no python3 to read the JSON report]"
	exit 2
fi

# perf_levels FILE: "key count" lines from perf script's data_src words
perf_levels() {
	perf script --itrace=M -F event,data_src -F trace:event -i "$1" 2>/dev/null |
	grep -v '^ *kmem:' | awk -F'|' '
	NF < 4 { next }
	{
		op = substr($2, 4); lvl = substr($3, 5); snp = substr($4, 5)
		total++
		if (snp ~ /HitM/)
			hitm++
		if (op == "N/A") { n["no_memory_op"]++; next }
		# the remote bit (37) is in the raw value only when no level
		# is said (SPE: "another socket"); c2c counts it as remote peer
		nw = split($1, w, " "); hex = sprintf("%016s", w[nw]); gsub(/ /, "0", hex)
		rmt = index("2367abef", substr(hex, 7, 1)) > 0
		if (lvl == "N/A" && rmt && snp ~ /Peer/) { n["rcache"]++; next }
		if (lvl == "N/A") { n["not_said"]++; next }
		remote = lvl ~ /^Remote/ && lvl !~ /^Remote core, same node/
		if (lvl ~ /L1 hit/) k = "L1"
		else if (lvl ~ /L1 miss|L3 miss/) { k = "miss"; rmiss += rmt }
		else if (lvl ~ /LFB/) k = "LFB"
		else if (lvl ~ /L2 hit/) k = snp ~ /Peer/ ? "peer" : "L2"
		else if (lvl ~ /CXL/) k = "CXL"
		else if (lvl ~ /RAM hit/) k = remote ? "rDRAM" : "DRAM"
		else if (lvl ~ /L3 hit|Any cache hit/) {
			if (remote) k = "rcache"
			else if (lvl ~ /^Remote core, same node/) k = "peer"
			else if (snp ~ /HitM|Peer/) k = "peer"
			else k = "L3"
		} else k = "other"
		n[k]++
	}
	END {
		for (k in n) print k, n[k]
		print "hitm", hitm + 0
		print "total", total + 0
		# misses whose level is not said but the remote bit is (SPE
		# generic: REMOTE_ACCESS): remote measured, no level key
		if (rmiss) print "rmiss", rmiss
	}' | sort
}

# mem_report_total FILE: the access samples perf mem report counts (its
# memory-level rows summed over the events that are not tracepoints, and
# for SPE over "memory": perf report's default itrace also synthesizes
# l1d/llc/tlb/remote-access samples from the same records)
mem_report_total() {
	perf mem report --stdio --sort=mem -n -i "$1" 2>/dev/null | awk '
	/^# Samples:/ {
		keep = $0 !~ /of event .(kmem:|dummy|l1d-|llc-|tlb-|remote-access|branch-miss)/
	}
	keep && /^ +[0-9.]+%/ { t += $2 }
	END { print t + 0 }'
}

# dprof_levels FILE: the same keys from perf dprof report --json
dprof_levels() {
	perf dprof report --json -i "$1" 2>/dev/null | python3 -c '
import json, sys
ds = json.load(sys.stdin)["data_source"]
out = {k: v for k, v in ds["levels"].items() if v}
if ds["no_memory_op"]:
    out["no_memory_op"] = ds["no_memory_op"]
out["hitm"] = ds["hitm"]
out["total"] = ds["memory_ops"] + ds["no_memory_op"]
for k in sorted(out):
    print(k, out[k])
' | sort
}

err=0
for plat in zen2 ibs pebs spr adl spe spev2; do
	data=$tmp/$plat.data
	if ! perf test -w dprof_cachemodel mixed 2 6 8192 13 $plat "$data" > /dev/null 2>&1; then
		echo "dprof platforms test [Failed: cannot synthesize a $plat recording]"
		err=1
		continue
	fi
	perf_levels "$data" > "$tmp/perf.all"
	grep -v '^rmiss ' "$tmp/perf.all" > "$tmp/perf"
	dprof_levels "$data" > "$tmp/dprof"
	events=$(perf evlist -i "$data" 2>/dev/null | grep -v '^kmem:\|^#' | tr '\n' ' ')
	if [ ! -s "$tmp/perf" ] || ! cmp -s "$tmp/perf" "$tmp/dprof"; then
		echo "dprof platforms test [Failed: $plat: perf script and perf dprof report" \
		     "disagree]"
		paste "$tmp/perf" "$tmp/dprof"
		err=1
	else
		echo "$plat ($events): $(tr '\n' ' ' < "$tmp/perf")"
	fi
	want=$(awk '$1 == "total" { print $2 }' "$tmp/perf")
	# SPE: perf's packet decoder (perf script -D) finds one record (one
	# timestamp packet) per memory sample, and no bad packet
	case $plat in spe*)
		perf script -D -i "$data" 2>/dev/null > "$tmp/dump"
		recs=$(grep -c '^\.  [0-9a-f]*:  71 .* TS [0-9]*$' "$tmp/dump")
		if [ "$recs" != "$want" ] || grep -q 'BAD' "$tmp/dump"; then
			echo "dprof platforms test [Failed: $plat: perf script -D: $recs SPE" \
			     "records for $want samples, $(grep -c BAD "$tmp/dump") bad packets]"
			err=1
		fi
	esac
	got=$(mem_report_total "$data")
	if [ "$got" != "$want" ]; then
		echo "dprof platforms test [Failed: $plat: perf mem report counts $got access" \
		     "samples, perf script $want]"
		err=1
	fi
	# latency: perf script's weight, averaged over the samples that have one
	want=$(perf script --itrace=M -F event,weight -F trace:event -i "$data" 2>/dev/null |
	       awk '$1 !~ /^kmem:/ && $NF > 0 { n++; w += $NF }
		    END { if (n) printf "%.0f cycles over %d samples\n", w / n, n }')
	got=$(perf dprof report --stdio -i "$data" 2>/dev/null |
	      sed -n 's/^# average sampled latency: //p')
	if [ "$got" != "$want" ]; then
		echo "dprof platforms test [Failed: $plat: latency: perf script '$want', perf" \
		     "dprof report '$got']"
		err=1
	fi
	cols=$(perf dprof report --stdio -i "$data" 2>/dev/null | grep '^# *Type ')
	want_hitm=$(awk '$1 == "hitm" && $2 > 0' "$tmp/perf")
	want_rmt=$(awk '$1 == "rcache" || $1 == "rDRAM" || $1 == "rmiss"' "$tmp/perf.all")
	case $cols in *HITM%*) has_hitm=y ;; *) has_hitm= ;; esac
	case $cols in *Rmt%*) has_rmt=y ;; *) has_rmt= ;; esac
	if [ "${want_hitm:+y}" != "$has_hitm" ] || [ "${want_rmt:+y}" != "$has_rmt" ]; then
		echo "dprof platforms test [Failed: $plat: columns '$cols', perf script: HITM" \
		     "'${want_hitm}', remote '${want_rmt}']"
		err=1
	fi
	# classify: measured sharing evidence next to the predicted classes
	# exactly when perf script shows HITM; all of perf's HITM samples
	# land on a type; each planted true (false) sharing type with HITMs
	# has more true (false) sharing evidence than the other kind.
	res=$(perf dprof report --json --view=classify -i "$data" 2>/dev/null |
	      python3 -c '
import json, sys
d = json.load(sys.stdin)
want, truth = int(sys.argv[1]), sys.argv[2]
planted = {}
for line in open(truth):
    f = line.split()
    if f and f[0] == "type":
        planted[f[1]] = f[2]
if not want:
    bad = [t["type"] for t in d["types"] if t.get("hitm") is not None]
    print("ok none (not measured)" if d.get("hitm_misses", 0) is None and not bad else
          "HITM shown though not measured: %s %s" % (d.get("hitm_misses"), bad))
    sys.exit()
got = sum(t["hitm"] for t in d["types"])
if d["hitm_misses"] != want or got != want:
    print("HITM misses %s, by type %d, perf script %d" % (d["hitm_misses"], got, want))
    sys.exit()
for t in d["types"]:
    ts, fs = t["hitm_true_sharing"], t["hitm_false_sharing"]
    p = planted.get(t["type"])
    if not t["hitm"] or p not in ("true_sharing", "false_sharing"):
        continue
    if (ts > fs) != (p == "true_sharing"):
        print("%s: planted %s, HITM evidence true %d false %d" % (t["type"], p, ts, fs))
        sys.exit()
print("ok HITM %d:" % want, ", ".join("%s true %d false %d" % (t["type"],
      t["hitm_true_sharing"], t["hitm_false_sharing"]) for t in d["types"] if t["hitm"]))
' "$(awk '$1 == "hitm" { print $2 }' "$tmp/perf")" "$data.truth")
	cls=$(perf dprof report --stdio --view=classify -i "$data" 2>/dev/null | grep -c 'HitmTS')
	if [ "${res%% *}" != ok ] || { [ "${want_hitm:+y}" = y ] && [ "$cls" = 0 ]; } ||
	   { [ -z "$want_hitm" ] && [ "$cls" != 0 ]; }; then
		echo "dprof platforms test [Failed: $plat: classify: $res; HitmTS columns $cls]"
		err=1
	else
		echo "$plat classify: measured sharing ${res#ok}"
	fi
done

# SPE's min_latency filters stores as well as loads: the classify view
# says so when it was set, and with min_latency=0 (--ldlat 0) the planted
# true and false sharing types are classified as planted.
if perf dprof report --stdio --view=classify -i "$tmp/spe.data" 2>/dev/null |
		grep -q '^# SPE min_latency 30 drops the stores'; then
	echo "spe min_latency=30: classify says that stores are filtered"
else
	echo "dprof platforms test [Failed: spe: classify does not say min_latency drops stores]"
	err=1
fi
if perf test -w dprof_cachemodel mixed 2 6 8192 13 spe "$tmp/spe0.data" 180000 0 \
		> /dev/null 2>&1; then
	res=$(perf dprof report --json --view=classify -i "$tmp/spe0.data" 2>/dev/null |
	      python3 -c '
import json, sys
planted = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "type" and f[2] in ("true_sharing", "false_sharing"):
        planted[f[1]] = f[2].replace("_", " ")
got = {t["type"]: max(t["classes"], key=t["classes"].get)
       for t in json.load(sys.stdin)["types"] if t["type"] in planted}
print("ok" if got == planted and planted else "planted %s, classified %s" % (planted, got))
' "$tmp/spe0.data.truth")
	if [ "$res" = ok ]; then
		echo "spe min_latency=0: planted sharing types classified as planted"
	else
		echo "dprof platforms test [Failed: spe min_latency=0: $res]"
		err=1
	fi
else
	echo "dprof platforms test [Failed: cannot synthesize an spe recording with min_latency 0]"
	err=1
fi

# The software sampler measures neither: no such columns.
if perf dprof record --sampler=soft --no-kmem -o "$tmp/soft.data" -- \
	perf test -w noploop 1 > /dev/null 2>&1; then
	cols=$(perf dprof report --stdio -i "$tmp/soft.data" 2>/dev/null | grep '^# *Type ')
	case $cols in
	*HITM%*|*Rmt%*) echo "dprof platforms test [Failed: software sampler: '$cols']"; err=1 ;;
	*) echo "software sampler: no HITM%/Rmt% columns" ;;
	esac
	if perf dprof report --stdio --view=classify -i "$tmp/soft.data" 2>/dev/null |
			grep -q 'HitmTS\|measured sharing'; then
		echo "dprof platforms test [Failed: software sampler: classify shows measured" \
		     "sharing]"
		err=1
	fi
fi
exit $err
