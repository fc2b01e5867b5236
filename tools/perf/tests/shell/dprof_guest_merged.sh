#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: a watch on a merged slab cache says so (exclusive)
#
# With slab merging, caches of one size and flags share one kmem_cache:
# the watch_id of each is the shared cache's, so a watch follows the
# objects of all of them, and the kmem events give them one name.  The
# guest kernel turns merging off (scripts/guest/dprof-guest.config); boot
# it with slab_merge and check that
#  - perf dprof record --watch on a merged cache warns, naming the caches
#    it shares its kmem_cache with (as the links in /sys/kernel/slab say,
#    up to four of them);
#  - on a cache that is not merged it does not.
#
# Needs (else skipped): DPROF_KERNEL, DPROF_RUN_IN_VM.

set -u

dprof_test="dprof guest merged slab cache test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL

dprof_guest_job dprof_merged

# exit 3: no PMU, 4: nothing merged, 5: nothing unmerged
dprof_guest_run "$DPROF_KERNEL" 300 '
[ -d /sys/bus/event_source/devices/slab_watch ] || exit 3
cd /sys/kernel/slab
# "target name" for every link, then the first group of two or more
for c in *; do [ -L "$c" ] && echo "$(readlink "$c") $c"; done | sort > /mnt/links
merged=$(awk "{ n[\$1]++; if (!(\$1 in first)) first[\$1] = \$2 }
	      END { for (t in n) if (n[t] > 1) print first[t] }" /mnt/links | sort | head -n 1)
[ -n "$merged" ] || exit 4
alone=$(for c in *; do [ -L "$c" ] || [ ! -f "$c/watch_id" ] || echo "$c"; done |
	grep -v "^:" | head -n 1)
[ -n "$alone" ] || exit 5
echo "$merged" > /mnt/merged
echo "$alone" > /mnt/alone
cd /tmp
for c in "$merged" "$alone"; do
	"$PERF_GUEST" dprof record -a --no-heap --watch="$c:0/8" --watch-histories=1 \
		-o /tmp/$c.data -- sleep 0.2 > /dev/null 2> /mnt/$c.err
	echo "$c rc=$?" >> /mnt/rc
done
' VM_APPEND=slab_merge
dprof_guest_ran rc "3:$DPROF_KERNEL: no slab_watch PMU (kernel-patches/ with CONFIG_SLAB_WATCH=y)" \
	"4:no merged slab cache with slab_merge" "5:every slab cache is merged"

merged=$(cat "${job}/merged")
alone=$(cat "${job}/alone")
target=$(awk -v c="$merged" '$2 == c { print $1 }' "${job}/links")
others=$(awk -v t="$target" -v c="$merged" '$1 == t && $2 != c { print $2 }' "${job}/links" |
	head -n 4)
warning=$(grep "slab cache '$merged' is merged with" "${job}/$merged.err")
if [ -z "$warning" ]; then
	fail "no warning for merged cache $merged (with $(echo "$others" | paste -sd' '))"
else
	for o in $others; do
		grep -qF "'$o'" <<< "$warning" ||
			fail "the warning for $merged does not name $o: $warning"
	done
fi
! grep -q "is merged with" "${job}/$alone.err" ||
	fail "a warning for $alone, which is not merged: $(cat "${job}/$alone.err")"
grep -q "^$alone rc=0" "${job}/rc" ||
	fail "record on $alone: $(cat "${job}/rc" "${job}/$alone.err")"

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/rc"
else
	echo "$merged shares its cache with $(echo "$others" | paste -sd' '): $warning"
	echo "${dprof_test} [Success]"
fi
cleanup
exit $err
