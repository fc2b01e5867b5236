#!/bin/bash
# Fuzz the slab_watch PMU (kernel-patches/0004) in the guest under the
# KASAN + lockdep kernel (scripts/guest/dprof-guest-debug.config, built
# into $BUILD_DIR/kernel-debug when missing): scripts/guest/watch-fuzz.c
# for WATCH_FUZZ_SECONDS (default 600) on every CPU of a 2-CPU guest,
# then fail on any BUG, WARNING, lockdep, KASAN or RCU splat in the
# kernel log.  Not part of make check (about 15 minutes with the boot).
# Slab caches are created and destroyed all along (the guest has no
# modules): the fuzzer mounts and unmounts a spare virtio-9p channel,
# each 9p client having a cache of its own, and opens watches on it.
#
# env: BUILD_DIR, WATCH_FUZZ_SECONDS, WATCH_FUZZ_SEED,
#      WATCH_FUZZ_KERNEL (a bzImage to use instead of the debug kernel)
set -u

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
secs=${WATCH_FUZZ_SECONDS:-600}
die() { echo "watch-fuzz: $*" >&2; exit 1; }

kernel=${WATCH_FUZZ_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$(KERNEL_OUT=$BUILD_DIR/kernel-debug \
		 KERNEL_CONFIG_EXTRA=$REPO/scripts/guest/dprof-guest-debug.config \
		 nice -n 10 "$REPO/scripts/build-kernel.sh" | tail -n 1) ||
		die "the debug guest kernel did not build"
fi
[ -f "$kernel" ] || die "no kernel $kernel"

job=$(mktemp -d "$BUILD_DIR/watch-fuzz.XXXXXX")
gcc -O2 -Wall -pthread -o "$job/watch-fuzz" "$REPO/scripts/guest/watch-fuzz.c" ||
	die "cannot build scripts/guest/watch-fuzz.c"
echo "watch-fuzz: $secs s on $kernel (job dir $job)"
VM_JOBDIR=$job VM_TIMEOUT=$((secs + 600)) VM_SPARE_9P=1 "$REPO/scripts/run-in-vm.sh" "$kernel" "
[ \$(nproc) -ge 2 ] || { echo 'guest has one CPU'; exit 1; }
cat /proc/sys/kernel/tainted > /mnt/tainted.before
WATCH_FUZZ_9P=spare0 /mnt/watch-fuzz $secs ${WATCH_FUZZ_SEED:-} || exit
cat /proc/sys/kernel/tainted > /mnt/tainted.after
dmesg > /mnt/dmesg.txt
" | tee "$job/out.txt"
rc=${PIPESTATUS[0]}

splat='BUG:|WARNING:|INFO: task .* blocked|rcu: INFO|UBSAN:|Oops|general protection fault|list_(add|del) corruption'
cat "$job/dmesg.txt" "$job/.console" > "$job/kernel.log" 2> /dev/null
[ "$rc" = 0 ] || die "guest rc=$rc (kernel log: $job/kernel.log)"
[ -s "$job/dmesg.txt" ] || die "no guest kernel log"
n=$(grep -cE "$splat" "$job/kernel.log")
echo "watch-fuzz: kernel log check: grep -cE '$splat' -> $n"
if [ "$n" != 0 ]; then
	grep -m5 -A25 -E "$splat" "$job/kernel.log"
	die "$n kernel splats (log: $job/kernel.log)"
fi
[ "$(cat "$job/tainted.before")" = "$(cat "$job/tainted.after")" ] ||
	die "kernel tainted during the run: $(cat "$job/tainted.before") -> $(cat "$job/tainted.after")"
grep -q 'CONFIG_KASAN=y' "$(dirname "$kernel")/../../../.config" 2> /dev/null ||
	echo "watch-fuzz: note: $kernel is not a KASAN kernel"
echo "watch-fuzz: 0 splats, kernel not tainted"
rm -rf "$job"
