#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user heap objects from the allocator recorder preloaded into the workload
#
# For a workload it launches, perf dprof record preloads its allocator
# recorder rather than placing uprobes: the report must give the heap rows
# the uprobes give on the same program (same sites, same object counts,
# the same types: a byte buffer read at p[-1] is typed in both);
# a program that allocates in a loop is logged whole and its short-lived
# objects no sample saw are left out of the file; a forked child's heap is
# tracked too; a static program gets one line saying its heap is not
# tracked (with --heap-uprobes too); perf script reads the recording; a damaged or cut log is
# reported in one line; a free dated late does not end the object that
# took its address meanwhile.

set -u

err=0
dprof_test="dprof user recorder test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_recorder

perf_dir=$(dirname "$(command -v perf)")
if [ ! -f "${perf_dir}/libperf-dprof-heap.so" ] &&
   [ ! -f "${perf_dir}/../lib64/libperf-dprof-heap.so" ] &&
   [ ! -f "${perf_dir}/../lib/libperf-dprof-heap.so" ]; then
	skip "no libperf-dprof-heap.so next to perf"
fi
dprof_user_build heap -fno-inline -pthread
dprof_user_build forks -fno-inline

# record TAG [OPTS...] -- PROG ARGS...: ${dir}/TAG.data, its output TAG.out,
# its report TAG.rep
record() {
	local tag=$1

	shift
	dprof_user_record "${tag}" "$@" || return 1
	perf dprof report --stdio --sort=site -i "${dir}/${tag}.data" > "${dir}/${tag}.rep" 2>&1
}

# "SITE OBJECTS" of each heap row of a report, sorted
heap_rows() {
	awk '/^  / {
		for (i = 1; i < NF; i++)
			if ($i == "heap")
				site = $(i + 1) " " $(i + 2)
		for (i = 1; i < NF; i++)
			if ($i == "n/a" && $(i + 1) == "n/a") {
				objs = $(i + 2)
				break
			}
		if (site != "")
			print site, objs
		site = ""
	}' "${dir}/$1.rep" | sort
}

# 1. The same program under the recorder and under the uprobes: the same
# heap rows (every node is sampled many times: the counts are exact).
record rec -- "${dir}/heap" count 50 2 || exit 1
record probes --heap-uprobes -- "${dir}/heap" count 50 2 || exit 1
if grep -q 'cannot place uprobes' "${dir}/probes.out"; then
	echo "${dprof_test}: uprobes cannot be placed here: recorder and uprobes not compared"
elif [ -z "$(heap_rows rec)" ] || [ "$(heap_rows rec)" != "$(heap_rows probes)" ]; then
	echo "${dprof_test} [Failed: the recorder's heap rows differ from the uprobes']"
	diff <(heap_rows probes) <(heap_rows rec)
	err=1
fi
# A byte buffer read through a byte pointer at -1 after its increment (as
# SQLite reads its pages' varints): typed by the pointer, in both.
record bytes -- "${dir}/heap" bytes 1 || exit 1
record bytes-probes --heap-uprobes -- "${dir}/heap" bytes 1 || exit 1
for tag in bytes bytes-probes; do
	if grep -q 'cannot place uprobes' "${dir}/${tag}.out"; then
		continue
	fi
	if ! grep -qE '^  unsigned char +heap new_bytes \(heap\.c:' "${dir}/${tag}.rep" ||
	   grep -qE '^  \? +heap new_bytes ' "${dir}/${tag}.rep"; then
		echo "${dprof_test} [Failed: ${tag}: the buffer read at p[-1] is not typed" \
		     "unsigned char]"
		grep -E '^  .* heap ' "${dir}/${tag}.rep" | head -3
		err=1
	fi
done
allocated=$(awk '/^allocated/ { print $2 }' "${dir}/rec.out")
if ! heap_rows rec | grep -qE "^new_node \(heap\.c:[0-9]+\) ${allocated:-x}\$"; then
	echo "${dprof_test} [Failed: no new_node row of ${allocated:-?} objects]"
	heap_rows rec
	err=1
fi
if ! grep -qE '^# user heap: allocator recorder in 1 process ' "${dir}/rec.rep" ||
   grep -q '^# user heap: allocator uprobes' "${dir}/rec.rep"; then
	echo "${dprof_test} [Failed: the header does not say the recorder tracked the heap]"
	grep '^# user heap' "${dir}/rec.rep"
	err=1
fi
# no uprobe events in the recorder's recording, and perf script reads it
if ! perf script -i "${dir}/rec.data" -F event > "${dir}/script.out" 2> "${dir}/script.err" ||
   [ -s "${dir}/script.err" ] || grep -q 'dprof_heap' "${dir}/script.out"; then
	echo "${dprof_test} [Failed: perf script on the recorder's recording]"
	head -5 "${dir}/script.err"
	err=1
fi
if ! perf report -i "${dir}/rec.data" --stdio > /dev/null 2> "${dir}/report.err"; then
	echo "${dprof_test} [Failed: perf report on the recorder's recording]"
	head -5 "${dir}/report.err"
	err=1
fi

# 2. An allocation loop: every call logged, the objects no sample saw left
# out of the file (fewer objects kept than samples taken), but counted.
churn=200000
record churn -- "${dir}/heap" churn ${churn} || exit 1
re='.*heap log of 1 process: ([0-9]+) allocations, ([0-9]+) frees; ([0-9]+) objects .*'
read -r allocs frees dropped < <(sed -nE "s/$re/\1 \2 \3/p" "${dir}/churn.out")
re='^# user heap: allocator recorder in 1 process .*, ([0-9]+) allocs, ([0-9]+) frees '
re+='\(([0-9]+) objects left out.*'
read -r rallocs rfrees rdropped < <(sed -nE "s/$re/\1 \2 \3/p" "${dir}/churn.rep")
kept=$((${rallocs:-0} - ${rdropped:-0}))
samples=$(sed -nE 's/^# resolved .* of ([0-9]+) samples.*/\1/p' "${dir}/churn.rep")
recsamples=$(sed -nE 's/^# ([0-9]+) samples in the allocator recorder itself.*/\1/p' \
	"${dir}/churn.rep")
if [ -z "${allocs}" ] || [ "${allocs}" -lt ${churn} ] || [ "${frees}" -lt ${churn} ] ||
   [ -z "${rallocs}" ] || [ -z "${samples}" ] ||
   [ "${rallocs}" -ne "${allocs}" ] || [ "${rdropped}" -ne "${dropped}" ] ||
   [ "${rfrees}" -lt ${churn} ] ||
   [ $((kept)) -gt $((samples + ${recsamples:-0} + 100)) ]; then
	echo "${dprof_test} [Failed: churn ${churn}: logged ${allocs:-?} allocations and" \
	     "${frees:-?} frees, ${dropped:-?} left out; the report counts ${rallocs:-?}" \
	     "allocations, ${rfrees:-?} frees, ${rdropped:-?} left out, so ${kept} replayed for" \
	     "${samples:-?} samples]"
	cat "${dir}/churn.out"
	grep '^# ' "${dir}/churn.rep" | head -8
	err=1
fi

# 2b. Objects alive all along, a known few of them touched: the recording
# keeps the objects a sample's address fell in (not every object alive
# when a sample was taken), and counts the others at their site, so the
# row's estimate is still bounded by all of them.
nr_subset=20000
k_subset=40
record subset -- "${dir}/heap" subset ${nr_subset} ${k_subset} 2 || exit 1
read -r rallocs rfrees rdropped < <(sed -nE "s/$re/\1 \2 \3/p" "${dir}/subset.rep")
kept=$((${rallocs:-0} - ${rdropped:-0}))
perf dprof report --json --sort=site -i "${dir}/subset.data" > "${dir}/subset.json" 2> /dev/null
known=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [t for t in d["types"] if "new_node" in (t.get("desc") or "")]
print(max((t["objects_known"] or 0) for t in rows) if rows else 0)
' "${dir}/subset.json" 2> "${dir}/subset.py.err")
if [ -z "${rallocs}" ] || [ "${rallocs}" -lt ${nr_subset} ] ||
   [ "${kept}" -lt ${k_subset} ] || [ "${kept}" -gt $((k_subset + 30)) ] ||
   [ "${known:-0}" -ne ${nr_subset} ]; then
	echo "${dprof_test} [Failed: subset: ${nr_subset} objects, ${k_subset} touched:" \
	     "the report counts ${rallocs:-?} allocations, ${rdropped:-?} left out, so" \
	     "${kept} replayed; the new_node row's objects known: ${known:-?}" \
	     "(want ${nr_subset})]"
	grep '^# ' "${dir}/subset.rep" | head -6
	cat "${dir}/subset.py.err"
	err=1
fi

# 3. A forked child: its heap is tracked in its own process.
record forks -- "${dir}/forks" 40 1 || exit 1
for who in parent child; do
	if ! heap_rows forks | grep -qE "^${who}_alloc \(forks\.c:[0-9]+\) 40\$"; then
		echo "${dprof_test} [Failed: no ${who}_alloc row of 40 objects]"
		heap_rows forks
		err=1
	fi
done
if ! grep -qE '^# user heap: allocator recorder in 2 processes ' "${dir}/forks.rep"; then
	echo "${dprof_test} [Failed: the header does not say two processes were tracked]"
	grep '^# user heap' "${dir}/forks.rep"
	err=1
fi

# 4. A static program: one line, and no heap rows.
if gcc -static -g -O1 -fno-inline -pthread -o "${dir}/heap-static" "${src}/heap.c" \
		2> /dev/null; then
	record static -- "${dir}/heap-static" count 20 0.5 || exit 1
	if [ "$(grep -c 'is statically linked: its heap objects are not tracked' \
		"${dir}/static.out")" != 1 ] || [ -n "$(heap_rows static)" ]; then
		echo "${dprof_test} [Failed: a static program: no one line, or heap rows]"
		cat "${dir}/static.out"
		err=1
	fi
	# ... and with the uprobes, which are on the shared C library
	record static-probes --heap-uprobes -- "${dir}/heap-static" count 20 0.5 || exit 1
	if [ "$(grep -c 'is statically linked: its heap objects are not tracked (--heap-uprobes' \
		"${dir}/static-probes.out")" != 1 ] || [ -n "$(heap_rows static-probes)" ]; then
		echo "${dprof_test} [Failed: a static program with --heap-uprobes: no one line," \
		     "or heap rows]"
		cat "${dir}/static-probes.out"
		err=1
	fi
else
	echo "${dprof_test}: no static C library: the static program not tested"
fi

# 5. A damaged log, and a log cut short: one line each, the report goes on.
size=$(stat -c %s "${dir}/rec.data")
cp "${dir}/rec.data" "${dir}/damaged.data"
# the log is the last section: its events end the file
printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' |
	dd of="${dir}/damaged.data" bs=1 seek=$((size - 40)) conv=notrunc status=none
cp "${dir}/rec.data" "${dir}/cut.data"
truncate -s $((size - 40)) "${dir}/cut.data"
for f in damaged cut; do
	if ! perf dprof report --stdio -i "${dir}/${f}.data" > "${dir}/${f}.rep" 2>&1 ||
	   [ "$(grep -c "^# DAMAGED: the allocator recorder's log is damaged" \
		"${dir}/${f}.rep")" != 1 ]; then
		echo "${dprof_test} [Failed: a ${f} log is not said in one line]"
		grep -E '^# (DAMAGED|user heap)' "${dir}/${f}.rep"
		tail -3 "${dir}/${f}.rep"
		err=1
	fi
done

# 6. Frees are dated by their thread's next timed event: one that comes
# after another thread took the freed address must not end that thread's
# object (which then has most of the samples).
if ! gcc -g -O1 -fno-inline -pthread -o "${dir}/latefree" "${src}/latefree.c" \
		2> "${dir}/cc.err"; then
	echo "${dprof_test} [Failed: build latefree]"
	cat "${dir}/cc.err"
	err=1
else
	record latefree -- "${dir}/latefree" 1 || exit 1
	if grep -q '^latefree: reused' "${dir}/latefree.out"; then
		share=$(awk '/ heap b_alloc / { for (i = 1; i <= NF; i++)
			if ($i ~ /%$/) { sub(/%/, "", $i); print int($i); exit } }' \
			"${dir}/latefree.rep")
		if [ "${share:-0}" -lt 30 ]; then
			echo "${dprof_test} [Failed: a late free ended the object that took its" \
			     "address: b_alloc's row has ${share:-no}% of the samples]"
			grep -A4 '^# Type' "${dir}/latefree.rep"
			err=1
		fi
	else
		echo "${dprof_test}: the freed block's address was not taken again here: late" \
		     "frees not tested"
	fi
fi

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
