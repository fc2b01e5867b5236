# SPDX-License-Identifier: GPL-2.0
# Shared by the perf dprof guest tests (tools/perf/tests/shell/dprof_guest_*.sh):
# the skip rule and the job directory.  A test sets dprof_test to its name
# for the result lines, then
#
#	dprof_guest_require DPROF_KERNEL DPROF_VMLINUX ...
#	dprof_guest_job NAME
#
# The guest is booted by $DPROF_RUN_IN_VM (scripts/run-in-vm.sh of the perf
# dprof repository) from $DPROF_KERNEL (a bzImage built from
# scripts/guest/dprof-guest.config and kernel-patches/); make check sets
# them.  Without them, QEMU or a perf in PATH the test is skipped, with the
# reason: exit 2.

skip() {
	echo "${dprof_test} [Skipped: $*]"
	exit 2
}

# Each variable named must name an existing file; also needs QEMU and perf.
# Sets perf_bin to the perf in PATH, resolved (the guest mounts its dir).
dprof_guest_require() {
	local v

	for v in "$@" DPROF_RUN_IN_VM; do
		[ -n "${!v:-}" ] ||
			skip "$v not set (needs a guest kernel: make kernel, see scripts/run-demo.sh)"
		[ -e "${!v}" ] || skip "$v=${!v} does not exist"
	done
	[ -x "$DPROF_RUN_IN_VM" ] || skip "$DPROF_RUN_IN_VM is not executable"
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed"
	perf_bin=$(readlink -f "$(command -v perf)") || skip "no perf in PATH"
	"$perf_bin" dprof record -h 2>&1 | grep -q -- --sampler ||
		skip "$perf_bin has no dprof command"
}

# A job directory for the guest's files (its /mnt), removed on exit; an
# interrupted test fails.
dprof_guest_job() {
	job=$(mktemp -d "/tmp/__perf_test.$1.XXXXX")
	trap trap_cleanup EXIT TERM INT
}

cleanup() {
	rm -rf "${job}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
