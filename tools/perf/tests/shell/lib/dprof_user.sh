#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the perf dprof user-program tests (dprof_user_*.sh): the
# set-up (job directory, skip rule, the programs' sources) and the
# comparison of the types perf's data-type profiling gives a recording's
# samples with those perf dprof report gives them.  A test sets
# dprof_test to its name for the result lines, then
#
#	dprof_user_setup NAME
#	... builds from ${src}, records into ${dir}, checks ...
#	cleanup; exit ${err}

# the test programs' sources
src="$(dirname "${BASH_SOURCE[0]}")/dprof_user"

cleanup() {
	rm -rf "${dir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}

skip() {
	echo "${dprof_test} [Skipped: $*]"
	cleanup
	exit 2
}

# dprof_user_setup NAME
# A job directory ${dir}, /tmp/__perf_test.NAME.XXXXX, removed on exit (an
# interrupted test fails); skip unless cpu-clock can be sampled with
# interrupt registers (the software sampler) and gcc builds the programs.
dprof_user_setup() {
	dir=$(mktemp -d "/tmp/__perf_test.$1.XXXXX")
	trap trap_cleanup EXIT TERM INT
	if ! perf record -o /dev/null -e cpu-clock --intr-regs=ip -- true >/dev/null 2>&1; then
		skip "cannot sample cpu-clock with interrupt registers"
	fi
	command -v gcc >/dev/null || skip "no gcc to build the test programs"
}

# dprof_user_need_dwarf
# Skip when perf has no DWARF support: no data-type profiling.
dprof_user_need_dwarf() {
	if ! perf version --build-options 2>/dev/null | grep -q 'dwarf_getlocations: \[ on'; then
		skip "perf built without DWARF support: no data-type profiling"
	fi
}

# dprof_user_build NAME [GCC_OPTS...]
# ${src}/NAME.c built with gcc -g -O1 GCC_OPTS into ${dir}/NAME; exit 1
# when the build fails.
dprof_user_build() {
	local name=$1

	shift
	if ! gcc -g -O1 "$@" -o "${dir}/${name}" "${src}/${name}.c" 2> "${dir}/cc.err"; then
		echo "${dprof_test} [Failed: build ${name}]"
		cat "${dir}/cc.err"
		exit 1
	fi
}

# dprof_user_record TAG [OPTS...] -- PROG ARGS...
# PROG recorded with the software sampler and no kmem events into
# ${dir}/TAG.data, perf's output in TAG.out; skip when the allocator's
# uprobes cannot be placed; return 1 (said) when the recording fails.
dprof_user_record() {
	local tag=$1

	shift
	if ! perf dprof record --sampler=soft --no-kmem -o "${dir}/${tag}.data" "$@" \
			> "${dir}/${tag}.out" 2>&1; then
		echo "${dprof_test} [Failed: record ${tag}]"
		cat "${dir}/${tag}.out"
		return 1
	fi
	if grep -q 'cannot place uprobes' "${dir}/${tag}.out"; then
		skip "$(grep -m1 'cannot place uprobes' "${dir}/${tag}.out")"
	fi
}

# dprof_user_touch
# touch.c, objects of known number touched in a known pattern, built with
# DWARF into ${dir}/touch; skip when perf has no DWARF support (no
# data-type profiling) or no python3 reads its --json; exit 1 when the
# build fails.
dprof_user_touch() {
	dprof_user_need_dwarf
	command -v python3 >/dev/null || skip "no python3 to read --json"
	if ! gcc -O1 -g -fno-inline -o "${dir}/touch" "${src}/touch.c" 2> "${dir}/cc.err"; then
		echo "${dprof_test} [Failed: build touch]"
		cat "${dir}/cc.err"
		exit 1
	fi
}

# dprof_user_twins
# A program and a library that each have a "struct worker" of their own
# layout (twins.c, twins-lib.c), built with DWARF into ${dir} and recorded
# with the software sampler into ${data} (${dir}/twins.data); skip when
# perf has no DWARF support (no data-type profiling); returns 1, with the
# compiler's or perf's output, when the build or the recording fails.
dprof_user_twins() {
	if ! perf version --build-options 2>/dev/null | grep -q 'dwarf_getlocations: \[ on'; then
		skip "perf built without DWARF support: no data-type profiling"
	fi
	if ! gcc -O1 -g -fno-inline -fPIC -shared -o "${dir}/libtwins.so" \
			"${src}/twins-lib.c" 2> "${dir}/cc.err" ||
	   ! gcc -O1 -g -fno-inline -o "${dir}/twins" "${src}/twins.c" -L"${dir}" -ltwins \
			-Wl,-rpath,"${dir}" 2>> "${dir}/cc.err"; then
		cat "${dir}/cc.err"
		return 1
	fi
	data="${dir}/twins.data"
	if ! perf dprof record --sampler=soft --no-kmem --no-heap -o "${data}" \
			-- "${dir}/twins" 1.5 > "${dir}/rec.out" 2>&1; then
		cat "${dir}/rec.out"
		return 1
	fi
}

# dprof_user_compare DATA OUTDIR
#
# perf report --sort symoff,type counts, per sampled instruction, the
# samples perf types and their type; perf dprof report --samples lists the
# type dprof gave each sample.  An instruction's samples agree when dprof
# gives as many of them the same type, or a more precise one: an allocator
# object (slab, kmalloc, heap) or a named static or per-cpu variable.
# Prints "typed N agreed M", the same per DSO ("dso NAME typed N agreed
# M") and, per disagreeing instruction, a line "DIFF symoff perf-type
# count: dprof types"; returns 1 when a tool fails.
dprof_user_compare() {
	local data=$1 dir=$2

	# -w: the symoff column is cut to the width of the symbol names
	if ! perf report --stdio -i "${data}" --sort dso,symoff,type -F sample,dso,symoff,type \
			-t '|' -w 12,4096,4096,4096 > "${dir}/perf.types" 2> "${dir}/perf.err"; then
		echo "perf report --sort type failed:"
		cat "${dir}/perf.err"
		return 1
	fi
	if ! perf dprof report --samples -i "${data}" > "${dir}/dprof.samples" \
			2> "${dir}/dprof.err"; then
		echo "perf dprof report --samples failed:"
		cat "${dir}/dprof.err"
		return 1
	fi
	awk -F'\t' '
	function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
	# perf dprof report --samples: time cpu symoff kind offset member type
	FNR == NR {
		if ($0 ~ /^#/)
			next
		where = trim($3); kind = trim($4); type = trim($7)
		n[where]++
		got[where, type]++
		if (kind == "slab" || kind == "kmalloc" || kind == "heap" ||
		    kind == "static" || kind == "percpu")
			precise[where]++
		if (!((where, kind, type) in kt)) {
			kt[where, kind, type] = 1
			seen[where] = seen[where] " " kind ":" type
		}
		next
	}
	# perf report -t "|": samples|dso|[.] symoff|type
	{
		split($0, f, "|")
		cnt = trim(f[1]) + 0; dso = trim(f[2]); where = trim(f[3])
		type = trim(f[4])
		if (trim(f[1]) !~ /^[0-9]+$/)
			next
		sub(/^\[.\] /, "", where)
		if (type == "(unknown)" || type == "(stack operation)" ||
		    type == "(stack canary)")
			next
		typed += cnt
		dso_typed[dso] += cnt
		# perf names a struct by the typedef a variable was declared
		# with ("tcache_entry"), dprof by its tag: the same type
		ok = got[where, type] + precise[where]
		if (type !~ /^(struct|union|enum) /)
			ok += got[where, "struct " type] + got[where, "union " type]
		if (ok > cnt)
			ok = cnt
		agreed += ok
		dso_agreed[dso] += ok
		if (ok < cnt)
			printf "DIFF %s %s %d:%s\n", where, type, cnt, seen[where]
	}
	END {
		printf "typed %d agreed %d\n", typed, agreed
		for (dso in dso_typed)
			printf "dso %s typed %d agreed %d\n", dso, dso_typed[dso],
			       dso_agreed[dso]
	}
	' "${dir}/dprof.samples" "${dir}/perf.types"
}
