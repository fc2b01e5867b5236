# SPDX-License-Identifier: GPL-2.0
# Shared by the perf dprof guest tests (tools/perf/tests/shell/dprof_guest_*.sh):
# the skip rule, the job directory, booting the guest and the result lines.
# A test sets dprof_test to its name for the result lines, then
#
#	dprof_guest_require DPROF_KERNEL DPROF_VMLINUX ...
#	dprof_guest_job NAME
#	dprof_guest_run "$DPROF_KERNEL" TIMEOUT 'guest script' [NAME=VALUE...]
#	dprof_guest_ran FILE [STATUS:SKIP-REASON...]
#	... checks on the files in $job, calling fail on each failure ...
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
			skip "$v not set (needs a guest kernel: make kernel, see" \
			     "scripts/run-demo.sh)"
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

# dprof_guest_run KERNEL TIMEOUT SCRIPT [NAME=VALUE...]
# Boot KERNEL and run SCRIPT there with bash, as root, in the job directory
# (the guest's /mnt; the guest's /tmp is its own tmpfs), with the perf under
# test as $PERF_GUEST and each NAME=VALUE in its environment.  The guest has
# DPROF_VM_TIMEOUT seconds, TIMEOUT by default.  Its output goes to
# $job/vm.log, its exit status to guest_rc.
dprof_guest_run() {
	local kernel=$1 timeout=$2 script=$3 names=PERF_GUEST a

	shift 3
	for a in "$@"; do
		names="$names ${a%%=*}"
	done
	env PERF_GUEST="$perf_bin" "$@" VM_JOBDIR="$job" VM_ENV="$names" \
		VM_SHARES="$(dirname "$perf_bin")" \
		VM_TIMEOUT="${DPROF_VM_TIMEOUT:-$timeout}" \
		"$DPROF_RUN_IN_VM" "$kernel" "$script" > "${job}/vm.log" 2>&1
	guest_rc=$?
}

# dprof_guest_ran FILE [STATUS:REASON...]
# After dprof_guest_run: skip with REASON when the guest script exited with
# STATUS (its way to say what the kernel lacks); fail the test, showing the
# guest's output (and record.err if it left one), unless the script exited
# with 0 and left a non-empty $job/FILE.
dprof_guest_ran() {
	local file=$1 r

	shift
	for r in "$@"; do
		if [ "$guest_rc" = "${r%%:*}" ]; then
			cleanup
			skip "${r#*:}"
		fi
	done
	[ "$guest_rc" = 0 ] && [ -s "${job}/${file}" ] && return 0
	echo "${dprof_test} [Failed: record in the guest, rc=$guest_rc]"
	cat "${job}/vm.log"
	[ ! -f "${job}/record.err" ] || cat "${job}/record.err"
	cleanup
	exit 1
}

# A failed check: say which, and fail the test at its end (exit $err);
# $failures keeps what was said, for a test to say it again after its logs.
err=0
failures=
fail() {
	echo "${dprof_test} [Failed: $*]"
	failures="${failures}${dprof_test} [Failed: $*]
"
	err=1
}

# dprof_guest_echo: build the loopback TCP echo server and client
# (lib/dprof_echo.c) as $job/echo, the guest's /mnt/echo, or fail the test;
# in the guest, 'sh /mnt/echo.sh CONNS MSGS' runs the server and a client
# of CONNS connections of MSGS messages each.
dprof_guest_echo() {
	if ! gcc -O2 -o "${job}/echo" "$(dirname "$0")/lib/dprof_echo.c" 2> "${job}/cc.err"; then
		echo "${dprof_test} [Failed: build the echo server]"
		cat "${job}/cc.err"
		cleanup
		exit 1
	fi
	cat > "${job}/echo.sh" << 'EOF2'
rm -f /tmp/port
/mnt/echo server /tmp/port "$1" &
while [ ! -e /tmp/port ]; do sleep 0.05; done
/mnt/echo client /tmp/port "$1" "$2"
wait
EOF2
}
