#!/bin/bash
# make check: build perf (and the guest kernel), run 'perf test -v dprof'.
# The last line is "N passed, N failed"; exit status 1 iff a test or the
# perf build failed.  Full log: $BUILD_DIR/check.log.
#
# env: BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh)
#      CHECK_KERNEL=0  do not build the guest kernel (guest tests then skip)
#      CHECK_DEBUG_KERNEL=0  do not build its KASAN+lockdep variant (the
#                      slab_watch stress test then skips)
#      CHECK_TESTS     'perf test' selection (default: dprof)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
export DPROF_REPO=$REPO	# for tests that need the repository (dprof_series.sh)
# the sanitizer build of make fuzz, if there is one: tests run views under it
[ ! -x "$BUILD_DIR/fuzz/build/perf/perf" ] ||
	export DPROF_SANITIZED_PERF=${DPROF_SANITIZED_PERF:-$BUILD_DIR/fuzz/build/perf/perf}
log=$BUILD_DIR/check.log

if [ -z "${DPROF_CHECK_LOG:-}" ]; then
	mkdir -p "$BUILD_DIR"
	DPROF_CHECK_LOG=$log "$0" "$@" 2>&1 | tee "$log"
	exit "${PIPESTATUS[0]}"
fi

say() { echo "check: $*"; }
t0=$SECONDS

if ! "$REPO/scripts/build-perf.sh"; then
	say "perf build failed"
	echo "0 passed, 1 failed"
	exit 1
fi
say "perf built in $((SECONDS - t0))s"
"$REPO/scripts/deps.sh" tmux || say "no tmux: the TUI test will skip"
"$REPO/scripts/deps.sh" libjemalloc2 libtcmalloc-minimal4 ||
	say "no jemalloc or tcmalloc: the heap test leaves them out"

# Guest tests skip unless the kernel they boot and QEMU exist.
if [ "${CHECK_KERNEL:-1}" != 0 ] && [ -x "$REPO/scripts/build-kernel.sh" ]; then
	"$REPO/scripts/deps.sh" qemu-system-x86 || say "no QEMU: guest tests will skip"
	t0=$SECONDS
	if "$REPO/scripts/build-kernel.sh" >/dev/null; then
		say "guest kernel built in $((SECONDS - t0))s"
		export DPROF_KERNEL=$BUILD_DIR/kernel/arch/x86/boot/bzImage
		export DPROF_VMLINUX=$BUILD_DIR/kernel/vmlinux
		export DPROF_RUN_IN_VM=$REPO/scripts/run-in-vm.sh
	else
		say "guest kernel build failed: guest tests will skip"
	fi
	# The slab_watch stress test runs on a KASAN + lockdep build of it.
	if [ -n "${DPROF_KERNEL:-}" ] && [ "${CHECK_DEBUG_KERNEL:-1}" != 0 ]; then
		t0=$SECONDS
		if KERNEL_OUT=$BUILD_DIR/kernel-debug \
		   KERNEL_CONFIG_EXTRA=$REPO/scripts/guest/dprof-guest-debug.config \
		   "$REPO/scripts/build-kernel.sh" >/dev/null; then
			say "debug guest kernel (KASAN, lockdep) built in $((SECONDS - t0))s"
			export DPROF_DEBUG_KERNEL=$BUILD_DIR/kernel-debug/arch/x86/boot/bzImage
		else
			say "debug guest kernel build failed: the stress test will skip"
		fi
	fi
fi

# perf test looks for shell tests in ./tools/perf/tests/shell and
# ./tests/shell first, then next to the perf binary: run it from a
# directory whose ./tests is the overlay's, with our tests in it.  (Next
# to the binary is not enough: where shellcheck is installed, perf's
# build leaves its logs in <perf dir>/tests/shell, and perf test then
# takes that directory, which holds no test.)
[ -d "$BUILD_DIR/perf/source/tests/shell/lib" ] ||
	{ say "$BUILD_DIR/perf/source/tests/shell missing"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$BUILD_DIR/perf/source/tests" "$tmp/tests"
cd "$tmp"
export PATH=$BUILD_DIR/perf:$PATH
say "$(command -v perf): perf test -v ${CHECK_TESTS:-dprof}"
t0=$SECONDS
# shellcheck disable=SC2086
perf test -v ${CHECK_TESTS:-dprof} 2>&1 | tee "$tmp/out" || true
say "tests ran in $((SECONDS - t0))s"

# Result lines: " 12: desc : Ok", " 12.3: desc : Skip (reason)", "... : FAILED!"
res=$(sed 's/\x1b\[[0-9;]*m//g' "$tmp/out" |
      sed -nE 's/^ *[0-9]+(\.[0-9]+)?: .*: (Ok|Skip|FAILED!)( \(.*\))?$/\2/p')
passed=$(grep -c '^Ok$' <<<"$res" || true)
skipped=$(grep -c '^Skip$' <<<"$res" || true)
failed=$(grep -c '^FAILED!$' <<<"$res" || true)
if [ $((passed + skipped + failed)) = 0 ]; then
	say "no test matched '${CHECK_TESTS:-dprof}'"
	failed=1
fi
# the suite is C tests and shell tests: none of the latter is a lookup gone wrong
if [ -z "${CHECK_TESTS:-}" ] && ! grep -q ': perf dprof: ' "$tmp/out"; then
	say "perf test found none of the shell tests (tools/perf/tests/shell/dprof_*.sh)"
	failed=$((failed + 1))
fi
# name the failures last, where a log cut to its tail still shows them
sed 's/\x1b\[[0-9;]*m//g' "$tmp/out" |
	sed -nE 's/^ *([0-9]+(\.[0-9]+)?: .*): FAILED!.*$/check: FAILED \1/p' |
	sed -E 's/ +$//'
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
