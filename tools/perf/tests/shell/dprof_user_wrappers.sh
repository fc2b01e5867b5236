#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user heap types through wrappers, pools and arenas
#
# Real programs allocate through wrappers around malloc and carve objects
# out of bigger blocks.  A program allocates three struct types through a
# one-level (my_alloc -> malloc) and a two-level wrapper (xmalloc ->
# my_alloc -> malloc); another mallocs a 1 MiB pool and hands out 64-byte
# structs from it; a C++ one places objects with placement new in an
# arena.  Each struct must be a row of its own, by the type its accesses'
# operands name, with the program's object count (distinct objects inside
# the blocks, within sampling: 90% of them at least), and as site the
# function that called the wrapper (new_apple, new_pear, new_plum: the
# wrappers found from the callchains, not named), or past a function
# --heap-wrapper names; the pool's and the arena's say the block they live
# in; no untyped heap row comes first; --type selects an untyped heap row
# by the description it prints.  The wrappers' program is recorded twice:
# with the allocator recorder (the default) and with the uprobes
# (--heap-uprobes): the same rows.  The flow view starts at the same site;
# --json counts the untyped samples by reason, as the header does.
# A static binary gets one line saying its heap is not tracked.  One
# struct reached through two typedefs is one row.  A calloc wrapper whose
# call sites get arrays of different types is a wrapper.  An allocator
# behind a function pointer that tail-calls realloc, entry points and an
# inlined wrapper around it: each struct sited at the line allocating it.

set -u

err=0
dprof_test="dprof user wrappers test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_wrap

dprof_user_need_dwarf
dprof_user_build wrap -fno-inline

# record TAG PROG ARGS...: ${dir}/TAG.data and its report TAG.rep (and
# TAG.json); RECORD_OPTS: for the recording
record() {
	local tag=$1

	shift
	# shellcheck disable=SC2086
	dprof_user_record "${tag}" ${RECORD_OPTS:-} -- "$@" || return 1
	report "${tag}" "${tag}"
}

# report TAG OUT [OPTS...]: the report of TAG.data into OUT.rep and OUT.json,
# a row per type and site (--sort=site): the sites are what is tested
report() {
	local tag=$1 out=$2

	shift 2
	perf dprof report --stdio --sort=site -i "${dir}/${tag}.data" "$@" \
		> "${dir}/${out}.rep" 2>&1
	perf dprof report --json --sort=site -i "${dir}/${tag}.data" "$@" \
		> "${dir}/${out}.json" 2>&1
}

# check_row TAG TYPE SITE N: TYPE's heap row of site SITE ('func \(file:N\)',
# an extended regular expression: all of the description, as the JSON
# output has it), with N objects less 10% at most
check_row() {
	local tag=$1 type=$2 site=$3 n=$4 row objects

	row=$(grep -E "^ *\{\"type\": \"${type}\", \"desc\": \"heap ${site}\"," \
		"${dir}/${tag}.json")
	objects=$(echo "${row}" | sed -nE 's/.*"objects": ([0-9]+),.*/\1/p')
	if [ -z "${row}" ]; then
		echo "${dprof_test} [Failed: ${tag}: no '${type}  heap ${site}' row]"
		grep -oE '"type": "[^"]*", "desc": "[^"]*"' "${dir}/${tag}.json" | head -8
		err=1
	elif [ -z "${objects}" ] || [ "${objects}" -gt "${n}" ] ||
	     [ "${objects}" -lt $((n * 9 / 10)) ]; then
		echo "${dprof_test} [Failed: ${tag}: ${type}: ${objects:-no} objects, the program" \
		     "made ${n}]"
		echo "${row}" | cut -c1-300
		err=1
	fi
}

# no untyped heap row ("?") above a typed one
check_order() {
	local tag=$1 first

	first=$(sed -n '/^# Type/,$p' "${dir}/${tag}.rep" | grep -m1 -E '^  .* heap ')
	case "${first}" in
	"  ? "*)
		echo "${dprof_test} [Failed: ${tag}: an untyped heap row comes first]"
		sed -n '/^# Type/,$p' "${dir}/${tag}.rep" | head -8
		err=1
		;;
	esac
}

nr=40
RECORD_OPTS=--heap-uprobes record wrap-uprobes "${dir}/wrap" wrap ${nr} 2 || exit 1
record wrap "${dir}/wrap" wrap ${nr} 2 || exit 1
for tag in wrap wrap-uprobes; do
	for type in apple pear plum; do
		check_row ${tag} "struct ${type}" "new_${type} \\(wrap\\.c:[0-9]+\\)" ${nr}
	done
done
# new_pear named a wrapper: the pears' site is its caller
report wrap named --heap-wrapper=new_pear
check_row named "struct pear" 'main \(wrap\.c:[0-9]+\)' ${nr}
check_row named "struct plum" 'new_plum \(wrap\.c:[0-9]+\)' ${nr}
check_order wrap
if ! grep -qE '^# user heap objects: .*% by the type their operand names' "${dir}/wrap.rep"; then
	echo "${dprof_test} [Failed: the header does not count the heap's typed and untyped" \
	     "samples]"
	err=1
fi

# --json counts the heap's samples as the header: typed, untyped by reason
# (how many are untyped is the C library's: its memset() has no operand
# type, and which memset() runs depends on the CPU)
if command -v python3 > /dev/null &&
   ! python3 - "${dir}/wrap.json" "${dir}/wrap.rep" <<'PY'
import json, re, sys

doc = json.load(open(sys.argv[1]))
heap = doc.get("user_heap") or {}
untyped = heap.get("untyped", {})
reasons = ["no operand type", "operand type past the object's bounds"]
line = [l for l in open(sys.argv[2]) if l.startswith("# user heap objects:")]
said = re.findall(r"([0-9.]+)%", line[0]) if line else []
pct = [100.0 * v / doc["samples"] if doc.get("samples") else -1 for v in
       [heap.get("typed", 0) + sum(untyped.values()), heap.get("typed", 0),
        sum(untyped.values())] + [untyped.get(r, 0) for r in reasons]]
ok = (heap.get("typed", 0) > 0 and sorted(untyped) == sorted(reasons) and
      heap["typed"] + sum(untyped.values()) == doc["resolved"]["heap"] and
      len(said) == 5 and all(abs(float(a) - b) <= 0.05 + 1e-9 for a, b in zip(said, pct)))
if not ok:
    print(heap, doc["resolved"], said, pct)
sys.exit(0 if ok else 1)
PY
then
	echo "${dprof_test} [Failed: --json: no user_heap counts agreeing with the heap samples]"
	err=1
fi

# the flow view starts at the same site as the row: past the wrappers
perf dprof report --stdio -i "${dir}/wrap.data" --view=flow --type='struct apple' \
	> "${dir}/flow.rep" 2>&1
if ! grep -qE '^  -> \[[0-9]+\] new_apple \(alloc\)' "${dir}/flow.rep"; then
	echo "${dprof_test} [Failed: the apples' flow does not start at new_apple]"
	grep -m3 -E '\(alloc\)|^alloc' "${dir}/flow.rep"
	err=1
fi

# --type takes an untyped heap row by what it prints
untyped=$(sed -n '/^# Type/,$p' "${dir}/wrap.rep" |
	  sed -nE 's/^  \? +(heap [A-Za-z_]+ \(wrap\.c:[0-9]+\)) .*/\1/p' | head -1)
if [ -n "${untyped}" ]; then
	if ! perf dprof report --stdio -i "${dir}/wrap.data" --type="${untyped}" \
			> "${dir}/untyped.rep" 2>&1 ||
	   ! grep -qF "${untyped}" "${dir}/untyped.rep"; then
		echo "${dprof_test} [Failed: --type='${untyped}' does not select that row]"
		head -5 "${dir}/untyped.rep"
		err=1
	fi
fi

record pool "${dir}/wrap" pool 64 2 || exit 1
check_row pool "struct cell" 'pool_init \(wrap\.c:[0-9]+\) in a 1 MiB block' 64
check_order pool

if command -v g++ > /dev/null; then
	if ! g++ -g -O1 -fno-inline -o "${dir}/arena" "${src}/arena.cc" 2> "${dir}/cc.err"; then
		echo "${dprof_test} [Failed: build arena]"
		cat "${dir}/cc.err"
		exit 1
	fi
	record arena "${dir}/arena" 64 2 || exit 1
	check_row arena "struct Widget" \
		'Arena::Arena\(unsigned long\) \(arena\.cc:[0-9]+\) in a 64 KiB block' 64
	check_order arena
else
	echo "${dprof_test}: no g++, the C++ arena not tested"
fi

gcc -g -O1 -static -o "${dir}/wrap-static" "${src}/wrap.c" 2> /dev/null
if [ -x "${dir}/wrap-static" ]; then
	perf dprof record --sampler=soft --no-kmem -o "${dir}/static.data" \
		-- "${dir}/wrap-static" wrap 4 0.1 > "${dir}/static.out" 2>&1
	if [ "$(grep -c 'wrap-static is statically linked: its heap objects are not tracked' \
		"${dir}/static.out")" != 1 ]; then
		echo "${dprof_test} [Failed: a static binary does not get one line saying its" \
		     "heap is not tracked]"
		cat "${dir}/static.out"
		err=1
	fi
else
	echo "${dprof_test}: no static C library, the static binary not tested"
fi

# One struct through two typedefs (point_t, and vec_t of const struct
# point): one row, named as perf names most of the accesses' type, both
# typedefs' accesses in its members, every object counted once.
# alias N SECS: N points from one site, read for SECS through a point_t *
# (x) and a vec_t * (y).
cat > "${dir}/alias.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct point {
	long	x;
	long	y;
	long	z;
	long	w;
};

typedef struct point point_t;
typedef const struct point vec_t;

static struct point *new_point(long i)
{
	struct point *p = malloc(sizeof(*p));

	if (!p)
		exit(1);
	p->x = i;
	p->y = 2 * i;
	p->z = 0;
	p->w = 0;
	return p;
}

static long sum_x(point_t **pts, int nr)
{
	long sum = 0;

	for (int i = 0; i < nr; i++)
		sum += pts[i]->x;
	return sum;
}

static long sum_y(vec_t **vecs, int nr)
{
	long sum = 0;

	for (int i = 0; i < nr; i++)
		sum += vecs[i]->y;
	return sum;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct point **pts;
	double end;
	long sum = 0;
	int nr;

	if (argc < 3)
		return 2;
	nr = atoi(argv[1]);
	pts = calloc(nr, sizeof(*pts));
	if (nr < 1 || !pts)
		return 1;
	for (int i = 0; i < nr; i++)
		pts[i] = new_point(i);
	end = now() + atof(argv[2]);
	do {
		sum += sum_x(pts, nr);
		sum += sum_y((vec_t **)pts, nr);
	} while (now() < end);
	printf("allocated %d sum %ld\n", nr, sum);
	return 0;
}
EOF
# A timer's samples do not fall evenly on the iterations of a loop this
# tight: interrupts are taken where the core retires, and some points (every
# other one in a run here) get a fraction of the samples.  With 500 points
# one run in many sampled 447; 200 give each about 30 samples.
npoints=200
if gcc -g -O1 -fno-inline -o "${dir}/alias" "${dir}/alias.c" 2>> "${dir}/cc.err"; then
	record alias "${dir}/alias" ${npoints} 2 || exit 1
	name=$(sed -nE 's/^  (point_t|vec_t|struct point) +heap new_point .*/\1/p' \
		   "${dir}/alias.rep")
	check_row alias "${name:-point_t}" 'new_point \(alias\.c:[0-9]+\)' ${npoints}
	if [ "$(grep -cE '^  .* heap new_point ' "${dir}/alias.rep")" != 1 ] ||
	   ! grep -qE '^  [a-z_ ]+ +heap new_point .* (x [0-9]+%, y|y [0-9]+%, x) [0-9]+%' \
		"${dir}/alias.rep"; then
		echo "${dprof_test} [Failed: one struct's two typedefs are not one row with both" \
		     "members]"
		grep -E '^  .* heap ' "${dir}/alias.rep" | head -3
		err=1
	fi
else
	echo "${dprof_test} [Failed: build alias.c]"
	cat "${dir}/cc.err"
	err=1
fi

# A calloc wrapper named so (zcalloc) that hands out one struct type's
# arrays from one call site and ints from another, as jq's jv_mem_calloc
# does: its call sites' objects have no type in common, so it is a
# wrapper, and each array's row names the function that called it.
# zcalloc N SECS: N items and N counts, summed for SECS.
cat > "${dir}/zcalloc.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct item {
	long	key;
	long	val;
};

void *zcalloc(size_t nr, size_t size)
{
	void *p = calloc(nr, size);

	if (!p)
		exit(1);
	return p;
}

static struct item *make_items(int nr)
{
	return zcalloc(nr, sizeof(struct item));
}

static int *make_counts(int nr)
{
	return zcalloc(nr, sizeof(int));
}

static long sum_items(struct item *items, int nr)
{
	long sum = 0;

	for (int i = 0; i < nr; i++)
		sum += items[i].val;
	return sum;
}

static long sum_counts(int *counts, int nr)
{
	long sum = 0;

	for (int i = 0; i < nr; i++)
		sum += counts[i];
	return sum;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct item *items;
	int *counts, nr;
	double end;
	long sum = 0;

	if (argc < 3)
		return 2;
	nr = atoi(argv[1]);
	if (nr < 1)
		return 2;
	items = make_items(nr);
	counts = make_counts(nr);
	end = now() + atof(argv[2]);
	do {
		sum += sum_items(items, nr);
		sum += sum_counts(counts, nr);
	} while (now() < end);
	printf("allocated %d sum %ld\n", nr, sum);
	return 0;
}
EOF
if gcc -g -O1 -fno-inline -o "${dir}/zcalloc" "${dir}/zcalloc.c" 2>> "${dir}/cc.err"; then
	record zcalloc "${dir}/zcalloc" 256 1 || exit 1
	for row in 'struct item +heap make_items \(zcalloc\.c:[0-9]+\)' \
		   'int +heap make_counts \(zcalloc\.c:[0-9]+\)'; do
		if ! grep -qE "^  ${row} " "${dir}/zcalloc.rep"; then
			echo "${dprof_test} [Failed: zcalloc: no '${row}' row: the calloc" \
			     "wrapper is not one]"
			grep -E '^  .* heap ' "${dir}/zcalloc.rep" | head -4
			err=1
		fi
	done
else
	echo "${dprof_test} [Failed: build zcalloc.c]"
	cat "${dir}/cc.err"
	err=1
fi

# An allocator behind a function pointer that tail-calls realloc, as Lua's
# l_alloc (fpalloc.c, built with -O2: the tail call a jmp), reached through
# two entry points (mem_malloc, mem_realloc) and an inlined collector
# wrapper, a few frames down, with stale return addresses in a frame: each
# struct's row is sited at the line that allocates it (its "SITE: struct"
# comment), past the entry points and the inlined wrapper (its caller's
# line, not the wrapper's), and no site stops at a wrapper.
# fpalloc N SECS: N tables (node arrays, array parts), strings, upvalues.
if gcc -g -O2 -Dnoinline='__attribute__((noinline))' -o "${dir}/fpalloc" "${src}/fpalloc.c" \
		2>> "${dir}/cc.err"; then
	if command -v objdump > /dev/null &&
	   ! objdump -d "${dir}/fpalloc" | sed -n '/<l_alloc>:/,/^$/p' |
		grep -qE 'jmp +[0-9a-f]+ <realloc'; then
		echo "${dprof_test}: fpalloc: gcc made no tail call to realloc in l_alloc"
	fi
	record fpalloc "${dir}/fpalloc" 40 2 || exit 1
	for type in table string node value upval; do
		line=$(grep -nF "/* SITE: ${type} */" "${src}/fpalloc.c" | cut -d: -f1)
		case ${type} in
		table|string)	func=new_${type} ;;
		upval)		func=new_upvals ;;
		*)		func=table_resize ;;
		esac
		site="${func} \\(fpalloc\\.c:${line}\\)"
		if [ ${type} = table ] || [ ${type} = string ]; then
			check_row fpalloc "struct ${type}" "${site}" 40
		elif ! grep -qE "\"type\": \"struct ${type}\", \"desc\": \"heap ${site}" \
			"${dir}/fpalloc.json"; then
			echo "${dprof_test} [Failed: fpalloc: struct ${type} not sited at ${func}" \
			     "(fpalloc.c:${line})]"
			grep -oE "\"type\": \"struct ${type}\", \"desc\": \"[^\"]*\"" \
				"${dir}/fpalloc.json"
			err=1
		fi
	done
	if ! grep -qE '^# allocation sites stopped at a wrapper .*: 0, 0\.0% of heap samples' \
		"${dir}/fpalloc.rep"; then
		echo "${dprof_test} [Failed: fpalloc: a site stopped at a wrapper]"
		grep -E '^# allocation' "${dir}/fpalloc.rep"
		err=1
	fi
else
	echo "${dprof_test} [Failed: build fpalloc.c]"
	cat "${dir}/cc.err"
	err=1
fi

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
