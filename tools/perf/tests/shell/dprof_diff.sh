#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: diff of two recordings with a planted difference
#
# Recording A runs the datasym workload (hot static 'buf1'), recording B
# the dprof_struct workload (hot static 'dprof_hot').  perf dprof diff
# must show dprof_hot growing and buf1 shrinking, both marked as changes
# beyond noise ('*'), biggest changes first.  dprof_struct is built -O0:
# most of its samples are stack spills, and dprof_hot gets about 10% of
# them, so 5% is its bound.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_diff.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

if ! perf record -o /dev/null -e cpu-clock --intr-regs=ip -- true >/dev/null 2>&1; then
	echo "dprof diff test [Skipped: cannot sample cpu-clock with interrupt registers]"
	exit 2
fi

# datasym loops until killed: two seconds of it, perf test's own start
# included; dprof_struct works one second from its start, whatever
# perf's took (a CI run whose one second covered both gave dprof_hot
# 0.26% of the samples).  No allocator uprobes: their traps would slow
# perf test's start.
for w in "a 2 datasym" "b 10 dprof_struct"; do
	set -- $w
	if ! perf dprof record --sampler=soft --no-kmem --no-heap -c 100000 -o "${tmp}/$1.data" \
			-- timeout -s INT "$2" perf test -w "$3" 1 > /dev/null 2>&1 &&
	   [ ! -s "${tmp}/$1.data" ]; then
		echo "dprof diff test [Failed: record $3]"
		exit 1
	fi
done

if ! perf dprof diff "${tmp}/a.data" "${tmp}/b.data" > "${tmp}/out" 2>&1; then
	echo "dprof diff test [Failed: perf dprof diff]"
	cat "${tmp}/out"
	exit 1
fi

err=0
hot=$(grep -E '^  struct dprof_hot +static dprof_hot' "${tmp}/out")
buf=$(grep -E 'static buf1 ' "${tmp}/out")
# columns after the two names: A% B% Delta
cols_re='[-+ ][0-9]+\.[0-9]+%? +[0-9]+\.[0-9]+% +[-+][0-9]+\.[0-9]+'
sure_re='%? +[0-9]+\.[0-9]+% +[-+][0-9]+\.[0-9]+ +[-+][0-9]+\.[0-9]+\*'
read -r a b d <<<"$(echo "$hot" | grep -oE "$cols_re" | tr -d '%')"
if [ -z "$hot" ] || [ "${a%.*}" != 0 ] || [ "${b%.*}" -lt 5 ] ||
   ! echo "$hot" | grep -qE "$sure_re"; then
	echo "dprof diff test [Failed: dprof_hot should go from 0% to >= 5%, marked '*': '$hot']"
	err=1
fi
read -r a b d <<<"$(echo "$buf" | grep -oE "$cols_re" | tr -d '%')"
if [ -z "$buf" ] || [ "${a%.*}" -lt 10 ] || [ "${b%.*}" != 0 ] ||
   ! echo "$buf" | grep -qE "$sure_re"; then
	echo "dprof diff test [Failed: buf1 should go from >= 10% to 0%, marked '*': '$buf']"
	err=1
fi
# biggest change first: the first data row is one of the two
first=$(grep -m1 -E '^  [^ ]' "${tmp}/out")
if ! echo "$first" | grep -qE 'dprof_hot|buf1'; then
	echo "dprof diff test [Failed: not sorted by change: '$first']"
	err=1
fi
[ $err -eq 0 ] && echo "dprof diff test [Success]" || cat "${tmp}/out"
exit $err
