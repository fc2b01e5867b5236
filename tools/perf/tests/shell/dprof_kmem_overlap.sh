#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: objects whose frees are unseen, left out when recorded (exclusive)
#
# A kernel without kernel-patches/ frees some objects without a kmem
# event: kfree_rcu()'s batches go through kmem_cache_free_bulk(), which
# has none.  An epoll instance's items (struct epitem, cache
# eventpoll_epi) are freed so: added and removed in a loop, each is
# allocated over the last ones, still live as far as the events say.
# Record such a loop under perf dprof record --no-prune, prune a copy as
# record does at its end (perf dprof prune -v), and check:
#  - the whole file's report counts allocations over a live object (else
#    this kernel traces those frees, and the test is skipped);
#  - the --json report of the pruned copy is the whole file's, but for
#    its name and the count of objects left out: the allocations over a
#    live object, everyone's and the recorded task's, with those of the
#    objects left out counted in the summary, the objects sampled, the
#    rows;
#  - the pruned copy holds at most a quarter of the whole file's
#    eventpoll_epi allocations: an object is not kept for having been
#    overlapped (nor for overlapping one), only for the samples;
#  - where a kept object was overlapped by one left out, the prune kept
#    that allocation as a mark (its -v line), and the report above is
#    still the whole file's: the kept object ends there in both.
# The samples are the software sampler's (cpu-clock with registers): with
# no code bytes for the kernel's samples (no /proc/kcore, no vmlinux) the
# prune keeps the objects their registers point into, and the epoll
# calls' registers point into items; with code bytes it decodes them.

set -u

iters=${DPROF_OVERLAP_ITERS:-40000}
tmp=$(mktemp -d /tmp/__perf_test.dprof_kmem_overlap.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

skip() {
	echo "dprof kmem overlap test [Skipped: $*]"
	exit 2
}

fail() {
	echo "dprof kmem overlap test [Failed: $*]"
	err=1
}

command -v gcc > /dev/null || skip "no gcc to build the epoll loop"
if ! perf record -q -o "${tmp}/probe.data" -e 'kmem:kmem_cache_alloc' -- true \
		> /dev/null 2>&1; then
	skip "cannot record kmem tracepoints (root, or perf_event_paranoid -1)"
fi
cat > "${tmp}/epoll.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* add an eventfd to an epoll instance and remove it, argv[1] times */
int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN, };
	long i, n = argc > 1 ? atol(argv[1]) : 1;
	int ep = epoll_create1(0), fd = eventfd(0, 0);

	if (ep < 0 || fd < 0) {
		perror("epoll_create1, eventfd");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ||
		    epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL)) {
			perror("epoll_ctl");
			return 1;
		}
	}
	return 0;
}
EOF
if ! gcc -O2 -o "${tmp}/epoll" "${tmp}/epoll.c" 2> "${tmp}/cc.err"; then
	echo "dprof kmem overlap test [Failed: build the epoll loop]"
	cat "${tmp}/cc.err"
	exit 1
fi

err=0
# every kmem event on every CPU: a ring buffer that holds a busy machine's
if ! perf dprof record --sampler=soft --no-heap --no-prune -m 16M -o "${tmp}/whole.data" \
		-- "${tmp}/epoll" "${iters}" > "${tmp}/rec.out" 2>&1; then
	echo "dprof kmem overlap test [Failed: perf dprof record]"
	cat "${tmp}/rec.out"
	exit 1
fi
cp "${tmp}/whole.data" "${tmp}/pruned.data"
if ! perf dprof prune -v -i "${tmp}/pruned.data" > "${tmp}/prune.out" 2>&1; then
	echo "dprof kmem overlap test [Failed: perf dprof prune]"
	cat "${tmp}/prune.out"
	exit 1
fi
for f in whole pruned; do
	perf dprof report --json -i "${tmp}/${f}.data" 2> /dev/null |
		sed -e 's/"input": "[^"]*"//' > "${tmp}/${f}.json"
	perf dprof report --stdio -i "${tmp}/${f}.data" > "${tmp}/${f}.txt" 2> /dev/null
done
grep -q '^# LOST' "${tmp}/whole.txt" &&
	skip "$(grep -m1 -o '^# LOST [0-9]* events' "${tmp}/whole.txt" | cut -c3-)" \
	     "while recording (a busy machine): their frees are unseen"
over=$(grep -o '"alloc_over_live": [0-9]*' "${tmp}/whole.json" | head -1 | grep -o '[0-9]*$')
[ -n "${over}" ] || fail "no alloc_over_live in the whole file's --json report"
[ "${over:-0}" -gt 0 ] ||
	skip "no allocation over a live object: this kernel traces the items' frees"

# the same report, but for the objects left out
sed -e 's/"left_out": [0-9]*//' "${tmp}/whole.json" > "${tmp}/whole.cmp"
sed -e 's/"left_out": [0-9]*//' "${tmp}/pruned.json" > "${tmp}/pruned.cmp"
if [ ! -s "${tmp}/whole.cmp" ] || ! cmp -s "${tmp}/whole.cmp" "${tmp}/pruned.cmp"; then
	fail "the --json reports of the whole and the pruned file differ"
	diff <(tr ',' '\n' < "${tmp}/whole.cmp") <(tr ',' '\n' < "${tmp}/pruned.cmp") | head -20
fi
grep -q '"left_out": [1-9]' "${tmp}/pruned.json" ||
	fail "the prune left no object out: $(grep -m1 'kmem events of' "${tmp}/prune.out")"

# epi_allocs FILE: the eventpoll_epi allocation events in FILE
epi_allocs() {
	perf script -i "$1" 2> /dev/null | grep -c 'kmem_cache_alloc:.*name=eventpoll_epi'
}
whole=$(epi_allocs "${tmp}/whole.data")
pruned=$(epi_allocs "${tmp}/pruned.data")
if [ "${whole}" -lt "$((iters / 2))" ]; then
	fail "the whole file has ${whole} eventpoll_epi allocations of ${iters} epoll_ctl(ADD)"
elif [ "$((pruned * 4))" -gt "${whole}" ]; then
	fail "the pruned file keeps ${pruned} of ${whole} eventpoll_epi allocations"
fi
marks=$(sed -n 's/^dprof: \([0-9]*\) allocations of objects left out kept as marks.*/\1/p' \
	"${tmp}/prune.out")
echo "allocations over a live object: ${over}; eventpoll_epi allocations: ${whole}," \
     "${pruned} kept, ${marks:-0} of them as marks"
exit $err
