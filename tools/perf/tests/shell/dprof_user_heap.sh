#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user heap objects from the allocator's uprobes
#
# A program allocates nodes of one struct from one function, touches them,
# frees one and allocates it again (the same address, with glibc's
# tcache): the data profile must have a heap row of that struct named by
# its allocation site, with one object per allocation the program reports.
# Two threads pinned to two CPUs touching the same nodes must flag the row
# as bouncing; with a node set per thread it must not.  Nodes from
# aligned_alloc, memalign, valloc and (with libc's debug file, which names
# the function that returns its pointer) posix_memalign are counted one
# by one too.  With jemalloc or tcmalloc preloaded, malloc, free, new and
# delete are theirs: their objects are counted the same.  The data flow of
# the nodes, from their sampled accesses: new_node, touch, the exit; from
# another CPU when the threads share them, never when they do not.

set -u

err=0
dprof_test="dprof user heap test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_heap

dprof_user_build heap -fno-inline -pthread

# record MODE ARGS...: ${dir}/MODE.data, the program's output in MODE.out;
# PRELOAD: a malloc replacement for the program (and perf), TAG: a name
# for the files instead of MODE, PROG: another program than heap
record() {
	local mode=$1 tag=${TAG:-$1}

	shift
	LD_PRELOAD=${PRELOAD:-} dprof_user_record "${tag}" --heap-uprobes \
		-- "${dir}/${PROG:-heap}" "${mode}" "$@" || return 1
	# a row per type and site: the sites are what is tested
	perf dprof report --stdio --sort=site -i "${dir}/${tag}.data" > "${dir}/${tag}.rep" 2>&1
}

# The heap row of struct node: "Type Cache/kind ... Objects WS Bounce ..."
node_row() {
	grep -E '^  struct node +heap new_node \(heap\.c:[0-9]+\)' "${dir}/$1.rep"
}

# The Objects column of a row of the software sampler ("n/a n/a" before it)
row_objects() {
	awk '{
		for (i = 1; i < NF; i++)
			if ($i == "n/a" && $(i + 1) == "n/a") {
				print $(i + 2)
				exit
			}
	}'
}

# count: 50 nodes for 2 seconds, every node is sampled many times
record count 50 2 || exit 1
row=$(node_row count)
allocated=$(awk '/^allocated/ { print $2 }' "${dir}/count.out")
if [ -z "${row}" ]; then
	echo "dprof user heap test [Failed: no 'struct node  heap new_node (heap.c:N)' row]"
	cat "${dir}/count.rep"
	err=1
elif [ -z "${allocated}" ]; then
	echo "dprof user heap test [Failed: the program did not say what it allocated]"
	cat "${dir}/count.out"
	err=1
else
	# Objects is the 4th column after "n/a n/a" of the software sampler
	objects=$(echo "${row}" | row_objects)
	if [ "${objects}" != "${allocated}" ]; then
		echo "dprof user heap test [Failed: ${objects} objects, the program allocated" \
		     "${allocated} (reused address:" \
		     "$(awk '/^allocated/ { print $4 }' "${dir}/count.out"))]"
		echo "${row}"
		err=1
	fi
fi
if ! grep -qE '^# user heap: allocator uprobes, [0-9]+ allocs, [1-9][0-9]* frees' \
		"${dir}/count.rep"; then
	echo "dprof user heap test [Failed: the header does not count the heap's allocs and frees]"
	err=1
fi
if ! grep -q '^# unresolved: ' "${dir}/count.rep"; then
	echo "dprof user heap test [Failed: unresolved samples not counted by reason]"
	err=1
fi

# Every view of the same recording reports, and under AddressSanitizer
# (DPROF_SANITIZED_PERF: a -fsanitize=address,undefined build such as
# make fuzz's, set by make check when there is one) without a report: the
# typed-operand cache once kept the DSOs of exited threads unreferenced
# (a use-after-free in every view of an undamaged heap recording).
for p in perf ${DPROF_SANITIZED_PERF:-}; do
	for view in profile classify workingset flow paths; do
		type=()
		case ${view} in
		flow|paths) type=(--type="struct node") ;;
		esac
		ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
			"${p}" dprof report --stdio -i "${dir}/count.data" --view=${view} \
			"${type[@]}" > "${dir}/view.out" 2> "${dir}/view.err"
		rc=$?
		# the same report: a sanitizer build checks reference counts,
		# each dso__get() a pointer of its own (rows once split by it)
		if [ "${p}" != perf ] && [ ${rc} -eq 0 ] &&
		   ! cmp -s "${dir}/view.out" "${dir}/${view}.view"; then
			echo "dprof user heap test [Failed: ${p} --view=${view} reports otherwise" \
			     "than perf]"
			diff "${dir}/${view}.view" "${dir}/view.out" | head -10
			err=1
		fi
		[ "${p}" = perf ] && mv "${dir}/view.out" "${dir}/${view}.view"
		if grep -qE 'ERROR: AddressSanitizer|runtime error:' "${dir}/view.err" ||
		   [ ${rc} -ne 0 ]; then
			echo "dprof user heap test [Failed: ${p} --view=${view}: exit ${rc}]"
			head -30 "${dir}/view.err"
			err=1
		fi
	done
done

# Data flow of the heap type from its sampled accesses (no watches in user
# space): allocated in new_node, touched in touch, ended by the exit.
perf dprof report --stdio -i "${dir}/count.data" --view=flow --type="struct node" \
	> "${dir}/count.flow" 2>&1
histories=$(sed -nE 's/^# data flow of struct node: ([0-9]+) object histories.*/\1/p' \
	"${dir}/count.flow")
if [ -z "${histories}" ] || [ "${histories}" -lt 1 ] ||
   ! grep -q '^# [0-9]* of the hits are access samples of user heap objects' "${dir}/count.flow" ||
   ! grep -qE '^ +-> \[[0-9]+\] new_node \(alloc\)' "${dir}/count.flow" ||
   ! grep -qE '^ +(->|==cpu==>) \[[0-9]+\] touch ' "${dir}/count.flow" ||
   ! grep -qE '\[[0-9]+\] exit \(free\)' "${dir}/count.flow"; then
	echo "dprof user heap test [Failed: no data flow new_node (alloc) -> touch -> exit (free)" \
	     "of the heap objects]"
	head -20 "${dir}/count.flow"
	err=1
fi

# aligned: 12 nodes from each aligned allocator, each from a function of
# its own (the row's site)
record aligned 12 2 || exit 1
allocated=$(awk '/^allocated/ { print $2 }' "${dir}/aligned.out")
libc=$(ldd "${dir}/heap" | awk '/libc\.so/ { print $3 }')
build_id=$(readelf -n "${libc}" 2>/dev/null | awk '/Build ID/ { print $3 }')
for fn in aligned_alloc memalign valloc posix_memalign; do
	row=$(grep -E "^  struct node +heap aligned_${fn} \(heap\.c:[0-9]+\)" "${dir}/aligned.rep")
	objects=$(echo "${row}" | row_objects)
	if [ "${fn}" = posix_memalign ] &&
	   [ ! -f "/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" ]; then
		echo "dprof user heap test: no debug file for ${libc} (libc6-dbg): posix_memalign" \
		     "not tested"
	elif [ -z "${allocated}" ] || [ "${objects}" != "${allocated}" ]; then
		echo "dprof user heap test [Failed: ${fn}: ${objects:-no} objects, the program" \
		     "allocated ${allocated}]"
		echo "${row}"
		err=1
	fi
done

# A malloc replacement, preloaded: the program's objects come from its
# malloc and free (C) and its operator new and delete (C++), never from
# glibc's; every one of them is counted.
for lib in libjemalloc.so.2 libtcmalloc_minimal.so.4; do
	path=$(ldconfig -p |
	       awk -v l="${lib}" '$1 == l && /x86-64|x86_64|64bit/ { print $NF; exit }')
	if [ -z "${path}" ]; then
		echo "dprof user heap test: no ${lib} on this system: not tested"
		continue
	fi
	tag=${lib%%.so*}
	PRELOAD=${path} TAG=${tag} record count 50 1 || exit 1
	objects=$(node_row "${tag}" | row_objects)
	allocated=$(awk '/^allocated/ { print $2 }' "${dir}/${tag}.out")
	# the probes of that library took them, not glibc's
	events=$(perf script -i "${dir}/${tag}.data" -F event 2>/dev/null |
		 grep -cE ':(je|tcm?)_malloc_ret:')
	if [ -z "${allocated}" ] || [ "${objects}" != "${allocated}" ] ||
	   [ "${events}" -lt "${allocated}" ]; then
		echo "dprof user heap test [Failed: ${lib}: ${objects:-no} objects, ${events} of" \
		     "its malloc returns, the program allocated ${allocated:-?}]"
		node_row "${tag}"
		err=1
	fi
	if ! command -v g++ > /dev/null; then
		echo "dprof user heap test: no g++: ${lib}'s operator new and delete not tested"
		continue
	fi
	if [ ! -x "${dir}/cxxheap" ] &&
	   ! g++ -g -O1 -fno-inline -o "${dir}/cxxheap" "${src}/cxxheap.cc" 2> "${dir}/cc.err"; then
		echo "dprof user heap test [Failed: build cxxheap]"
		cat "${dir}/cc.err"
		exit 1
	fi
	PRELOAD=${path} TAG=${tag}-cxx PROG=cxxheap record 40 || exit 1
	read -r allocated deleted < <(awk '/^allocated/ { print $2, $4 }' "${dir}/${tag}-cxx.out")
	news=$(perf script -i "${dir}/${tag}-cxx.data" -F event 2>/dev/null |
	       grep -cE ':(je|tcm?)_opnew_ret:')
	deletes=$(perf script -i "${dir}/${tag}-cxx.data" -F event 2>/dev/null |
		  grep -cE ':(je|tcm?)_opdel[a-z]*:')
	header=$(grep -E '^# user heap: ' "${dir}/${tag}-cxx.rep")
	frees=$(echo "${header}" |
		sed -nE 's/.* ([0-9]+) frees, ([0-9]+) frees of pointers not allocated.*/\1 \2/p')
	# tcmalloc's start-up makes objects with new too
	if [ -z "${allocated}" ] || [ "${news}" -lt "${allocated}" ] ||
	   [ "${deletes}" != "${deleted}" ] || [ "${frees%% *}" -lt "${deleted}" ] ||
	   [ "${frees##* }" != 0 ]; then
		echo "dprof user heap test [Failed: ${lib} C++: ${news} news and ${deletes}" \
		     "deletes probed, the program made ${allocated:-?} and deleted ${deleted:-?};" \
		     "report: ${header}]"
		err=1
	fi
done

if [ "$(nproc)" -ge 2 ]; then
	record shared 1 || exit 1
	record private 1 || exit 1
	if ! node_row shared | grep -qE ' yes +hits'; then
		echo "dprof user heap test [Failed: nodes shared by two CPUs do not bounce]"
		node_row shared
		err=1
	fi
	if ! node_row private | grep -qE ' no +hits'; then
		echo "dprof user heap test [Failed: per-thread nodes bounce]"
		node_row private
		err=1
	fi
	# ... and in the data flow, touch steps come from another CPU or not
	for mode in shared private; do
		perf dprof report --stdio -i "${dir}/${mode}.data" --view=flow \
			--type="struct node" > "${dir}/${mode}.flow" 2>&1
	done
	if ! grep -qE '==cpu==> \[[0-9]+\] touch ' "${dir}/shared.flow"; then
		echo "dprof user heap test [Failed: the data flow of shared nodes changes no CPU]"
		head -20 "${dir}/shared.flow"
		err=1
	fi
	if grep -qE '==cpu==> \[[0-9]+\] touch ' "${dir}/private.flow" ||
	   ! grep -qE ' -> \[[0-9]+\] touch ' "${dir}/private.flow"; then
		echo "dprof user heap test [Failed: the data flow of per-thread nodes changes CPU]"
		head -20 "${dir}/private.flow"
		err=1
	fi
else
	echo "dprof user heap test: one CPU, bouncing not tested"
fi

# The kernel's handling of the probes (trap, step, return trampoline) is
# counted apart: most of the samples of an allocation loop, none of them
# left in the shares (they were 'no code bytes').
record churn 20000 || exit 1
traps=$(sed -nE "s/^# ([0-9]+) samples in the kernel's handling of the allocator's uprobes.*/\1/p" \
	"${dir}/churn.rep")
total=$(sed -nE 's/^# resolved .* of ([0-9]+) samples.*/\1/p' "${dir}/churn.rep")
if [ -z "${traps}" ] || [ -z "${total}" ] || [ "${traps}" -le $((total * 2)) ]; then
	echo "dprof user heap test [Failed: the uprobes' traps are not counted apart:" \
	     "${traps:-no} trap samples, ${total:-?} in the shares]"
	grep '^# ' "${dir}/churn.rep" | head -12
	err=1
fi

if [ ${err} -eq 0 ]; then
	echo "dprof user heap test [Success]"
fi
cleanup
exit ${err}
