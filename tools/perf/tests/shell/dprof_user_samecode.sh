#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: two programs with the same code address, each its own type
#
# Build one program twice without PIE, its struct and hot function named
# differently each time (struct sc_alpha, struct sc_beta), so that the
# two processes run the same instructions at the same addresses on heap
# objects of different types.  Record both together with the software
# sampler, without the allocator's uprobes (the types come from DWARF):
# each process's samples must get its own program's type, as perf report
# --sort type gives them on the same perf.data.  The report's code and
# type caches must not take an ip for the code it is in.  Then again with
# the allocator's uprobes: both programs call malloc from one address, and
# each program's site is a heap row of its own type.

set -u

err=0
dprof_test="dprof user same code test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_samecode

dprof_user_need_dwarf

for n in alpha beta; do
	if ! gcc -g -O1 -fno-inline -no-pie -DSAMECODE_NAME="sc_${n}" \
			-o "${dir}/samecode-${n}" "${src}/samecode.c" 2> "${dir}/cc.err"; then
		skip "gcc cannot build a program without PIE: $(head -1 "${dir}/cc.err")"
	fi
	nm "${dir}/samecode-${n}" | awk -v n="${n}" '$3 == "touch_sc_" n { print $1 }' \
		> "${dir}/${n}.addr"
done
if [ ! -s "${dir}/alpha.addr" ] || ! cmp -s "${dir}/alpha.addr" "${dir}/beta.addr"; then
	skip "the compiler put the two programs' functions at different addresses"
fi

if ! perf dprof record --sampler=soft --no-kmem --no-heap -o "${dir}/perf.data" -- \
		sh -c "'${dir}/samecode-alpha' 1 & '${dir}/samecode-beta' 1; wait" \
		> "${dir}/rec.out" 2>&1; then
	echo "${dprof_test} [Failed: record]"
	cat "${dir}/rec.out"
	cleanup
	exit 1
fi

# perf's own typing of the same file: each program's samples, its type
if ! dprof_user_compare "${dir}/perf.data" "${dir}" > "${dir}/cmp"; then
	cat "${dir}/cmp"
	cleanup
	exit 1
fi
for n in alpha beta; do
	read -r _ _ _ typed _ agreed < <(grep "^dso samecode-${n} " "${dir}/cmp")
	perf_type=$(awk -F'|' -v n="${n}" \
		'$2 ~ "samecode-" n && $4 ~ "struct sc_" n { print "yes" }' \
		"${dir}/perf.types" | head -1)
	if [ -z "${typed:-}" ] || [ "${typed}" -eq 0 ] || [ -z "${perf_type}" ]; then
		echo "${dprof_test} [Failed: perf typed no sample of samecode-${n} as struct" \
		     "sc_${n}]"
		err=1
		continue
	fi
	echo "${dprof_test}: samecode-${n}: perf typed ${typed} samples, dprof agrees on ${agreed}"
	if [ "${agreed}" -ne "${typed}" ]; then
		echo "${dprof_test} [Failed: samecode-${n}: dprof types ${agreed} of the ${typed}" \
		     "samples perf types]"
		grep '^DIFF' "${dir}/cmp" | head -10
		err=1
	fi
done

# and the profile has a row of each type, in its own program
perf dprof report --stdio --sort=site -i "${dir}/perf.data" > "${dir}/rep" 2>&1
for n in alpha beta; do
	if ! grep -qE "^  struct sc_${n} .*\(samecode-${n}\)" "${dir}/rep"; then
		echo "${dprof_test} [Failed: no struct sc_${n} row of samecode-${n}]"
		grep -E 'struct sc_|^# resolved' "${dir}/rep"
		err=1
	fi
done

# with the uprobes: one heap row per program, typed by its own code
if ! perf dprof record --sampler=soft --no-kmem -o "${dir}/heap.data" -- \
		sh -c "'${dir}/samecode-alpha' 1 & '${dir}/samecode-beta' 1; wait" \
		> "${dir}/heap.out" 2>&1; then
	echo "${dprof_test} [Failed: record with the heap uprobes]"
	cat "${dir}/heap.out"
	err=1
elif grep -q 'cannot place uprobes' "${dir}/heap.out"; then
	echo "${dprof_test}: $(grep -m1 'cannot place uprobes' "${dir}/heap.out"): heap rows not" \
	     "tested"
else
	perf dprof report --stdio --sort=site -i "${dir}/heap.data" > "${dir}/heap.rep" 2>&1
	for n in alpha beta; do
		if ! grep -qE "^  struct sc_${n} +heap main " "${dir}/heap.rep"; then
			echo "${dprof_test} [Failed: no struct sc_${n} heap row]"
			grep -E '^  .* heap |^# resolved' "${dir}/heap.rep"
			err=1
		fi
	done
fi

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
