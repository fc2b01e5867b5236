#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: objects of allocators the C library's malloc is not
#
# A runtime's or a program's own allocator hands out objects the preloaded
# recorder does not see through malloc.  ualloc.c has an in-house pool in
# a mapping of its own (pool_get, pool_put, pool_resize), named with
# --heap-alloc, and a tiny allocator linked in under jemalloc's prefixed
# names (je_malloc, je_calloc, je_realloc, je_free) in a static arena,
# which is tracked without being named, as a server's bundled static
# jemalloc.  Each object type must be a row with its site past the
# allocator (new_node, new_item), within sampling as many objects as the
# program keeps live; an allocator function whose entry cannot be hooked
# (named, or a static jemalloc's) and one that does not exist each get one
# header line saying so; a malformed --heap-alloc is refused.

set -u

err=0
dprof_test="dprof user allocators test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_ualloc

dprof_user_need_dwarf
case $(uname -m) in
x86_64) ;;
*)	skip "the recorder hooks allocators' entries on x86-64 only" ;;
esac
dprof_user_build ualloc -fno-inline

# record TAG OPTS... -- PROG ARGS...: ${dir}/TAG.data, its report TAG.rep
# and TAG.json
record() {
	local tag=$1

	shift
	dprof_user_record "${tag}" "$@" || return 1
	perf dprof report --stdio --sort=site -i "${dir}/${tag}.data" > "${dir}/${tag}.rep" 2>&1
	perf dprof report --json --sort=site -i "${dir}/${tag}.data" > "${dir}/${tag}.json" 2>&1
}

# check_row TAG TYPE SITE N: a row of TYPE at heap site SITE (an extended
# regular expression, 'func \(file:N\)'), with N/2 objects at least (an
# estimate from the samples) and 4 N at most (some are made again)
check_row() {
	local tag=$1 type=$2 site=$3 n=$4 row objects

	row=$(grep -E "\"type\": \"${type}\", \"desc\": \"heap ${site}\"" "${dir}/${tag}.json" |
	      head -1)
	objects=$(echo "${row}" | sed -nE 's/.*"objects": ([0-9]+),.*/\1/p')
	if [ -z "${row}" ]; then
		echo "${dprof_test} [Failed: ${tag}: no '${type}  heap ${site}' row]"
		grep -E '^# (user heap|heap)' "${dir}/${tag}.rep"
		sed -n '/^# Type/,$p' "${dir}/${tag}.rep" | head -6
		err=1
	elif [ -z "${objects}" ] || [ "${objects}" -lt $((n / 2)) ] ||
	     [ "${objects}" -gt $((n * 4)) ]; then
		echo "${dprof_test} [Failed: ${tag}: ${type}: ${objects:-no} objects, the program" \
		     "keeps ${n}]"
		echo "${row}" | cut -c1-300
		err=1
	fi
}

nr=256
record pool --heap-alloc=pool_get,pool_put,pool_resize -- "${dir}/ualloc" pool ${nr} 2 ||
	exit 1
check_row pool "struct node" 'new_node \(ualloc\.c:[0-9]+\)' ${nr}

record je -- "${dir}/ualloc" je ${nr} 2 || exit 1
check_row je "struct item" 'new_item \(ualloc\.c:[0-9]+\)' ${nr}
if grep -q '^# heap: ' "${dir}/je.rep"; then
	echo "${dprof_test} [Failed: je: the static allocator was hooked, yet a header line" \
	     "says otherwise]"
	grep '^# heap: ' "${dir}/je.rep"
	err=1
fi

# odd_get's entry cannot be moved; nosuch is no function of the program
record odd --heap-alloc=odd_get --heap-alloc=nosuch,pool_put -- "${dir}/ualloc" pool 64 0.3 ||
	exit 1
refused='odd_get \(in ualloc\) is not tracked: its entry.s instruction at \+0 .* cannot be moved'
for line in "# heap: --heap-alloc: ${refused}" \
	    '# heap: --heap-alloc: no function nosuch in ualloc or its libraries'; do
	if [ "$(grep -cE "^${line}" "${dir}/odd.rep")" != 1 ]; then
		echo "${dprof_test} [Failed: odd: not one header line '${line}']"
		grep -E '^# (user heap|heap)' "${dir}/odd.rep"
		err=1
	fi
done

# a static jemalloc whose je_malloc cannot be hooked (it starts by reading
# the TSC): one header line names it, where it is, and why
cat > "${dir}/jeodd.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>

void *je_malloc(size_t size);
void je_free(void *p);
__asm__(".text\n.globl je_malloc\n.type je_malloc, @function\nje_malloc:\n"
	"\trdtsc\n\tjmp malloc@PLT\n.size je_malloc, .-je_malloc\n");

void je_free(void *p)
{
	free(p);
}

int main(void)
{
	long *p = je_malloc(sizeof(*p));

	*p = 1;
	printf("%ld\n", *p);
	je_free(p);
	return 0;
}
EOF
if gcc -g -O1 -o "${dir}/jeodd" "${dir}/jeodd.c" 2> "${dir}/cc.err"; then
	record jeodd -- "${dir}/jeodd" || exit 1
	line='# heap: the program allocates with je_malloc \(static jemalloc in jeodd\);'
	line="${line} its objects are not tracked: its entry.s instruction at \+0 \(0f 31 "
	if [ "$(grep -cE "^${line}" "${dir}/jeodd.rep")" != 1 ]; then
		echo "${dprof_test} [Failed: jeodd: not one header line saying je_malloc is not" \
		     "tracked, and why]"
		grep -E '^# (user heap|heap)' "${dir}/jeodd.rep"
		err=1
	fi
else
	echo "${dprof_test} [Failed: build jeodd.c]"
	cat "${dir}/cc.err"
	err=1
fi

for bad in 'a,,b' 'a,b,c,d' ',a' 'a b'; do
	if perf dprof record --sampler=soft --no-kmem --heap-alloc="${bad}" \
			-o "${dir}/bad.data" -- true > "${dir}/bad.out" 2>&1 ||
	   ! grep -q "heap-alloc=${bad}: want ALLOC" "${dir}/bad.out"; then
		echo "${dprof_test} [Failed: --heap-alloc='${bad}' is not refused with a reason]"
		head -3 "${dir}/bad.out"
		err=1
	fi
done

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
