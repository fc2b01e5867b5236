#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: guest kernel slab cache profile (exclusive)
#
# Boot a test kernel under QEMU, hammer file open/close on every CPU while
# 'perf dprof record -a' runs, and check that the data profile puts the
# file slab cache (filp, struct file) among its top rows, with members.
#
# Needs (else skipped):
#   DPROF_KERNEL     bzImage of a kernel built from scripts/guest/dprof-guest.config
#   DPROF_VMLINUX    its vmlinux (DWARF: struct file members)
#   DPROF_RUN_IN_VM  scripts/run-in-vm.sh of the perf dprof repository
# The perf under test must be at a path the guest can see (anything but the
# host's /tmp, unless it is in the repository or BUILD_DIR); its directory is
# shared with the guest otherwise.

set -u

# ---- what the report must show: edit here when the format changes ----
# Data rows of the profile are the lines after the '# Type ...' header that
# start with two spaces (DESIGN.md section 1):
#   "  struct file       filp    11.4%  n/a  n/a  377  71 KB  no  f_count 40%, f_mode 22%"
top_rows=3					# filp must be among the first N slab rows
row_re='(struct file|[[:space:]]filp[[:space:]])'	# the row of the file cache
member_re='f_[a-z_.]+ +[0-9.]+%'			# at least one member with its share
# -----------------------------------------------------------------------

secs=${DPROF_TEST_SECONDS:-3}

dprof_test="dprof guest slab test"
# shellcheck source=lib/dprof_guest.sh
. "$(dirname "$0")"/lib/dprof_guest.sh

dprof_guest_require DPROF_KERNEL DPROF_VMLINUX

dprof_guest_job dprof_guest

# The workload: one bash per CPU opening and closing a tmpfs file through
# builtin redirections (no fork per open), for $secs seconds.  perf.data
# goes to the guest's tmpfs first: written over 9p, the 9p client would
# take a good part of the -a profile.
cat > "${job}/workload.sh" <<'EOF'
#!/bin/bash
secs=$1
n=$(nproc)
for ((c = 0; c < n; c++)); do
	(
		f=/tmp/dprof-filp.$c
		echo data > "$f"
		end=$((SECONDS + secs))
		i=0
		while [ $SECONDS -lt $end ]; do
			for k in 1 2 3 4 5 6 7 8 9 10; do
				: < "$f"
				: >> "$f"
			done
			i=$((i + 20))
		done
		echo "workload: cpu slot $c: $i opens"
	) &
done
wait
EOF
chmod +x "${job}/workload.sh"

dprof_guest_run "$DPROF_KERNEL" 300 '
[ "$(nproc)" -ge 2 ] || echo "guest: only $(nproc) CPU"
"$PERF_GUEST" dprof record -a --no-heap -m 32M -o /tmp/perf.data -- \
	/mnt/workload.sh '"$secs"' || exit
cp /tmp/perf.data /mnt/perf.data
'
dprof_guest_ran perf.data

if ! "$perf_bin" dprof report --stdio --sort=site -i "${job}/perf.data" --vmlinux "$DPROF_VMLINUX" \
		> "${job}/report.txt" 2> "${job}/report.err"; then
	fail "report"
	cat "${job}/report.err"
	cleanup
	exit 1
fi

# rank among the rows of the address set: statics, per-cpu variables,
# DWARF-typed and operand-only rows depend on what else the kernel did
# meanwhile
rows=$(sed -n '/^# Type/,$p' "${job}/report.txt" | grep -E '^  [^ ]' |
       grep -vE ' (static|percpu) | \((no alloc event|operand only)' | head -n $top_rows)
row=$(echo "$rows" | grep -m1 -E "$row_re")
if [ -z "$row" ]; then
	fail "no filp / struct file row in the top $top_rows"
elif ! echo "$row" | grep -qE "$member_re"; then
	fail "filp row names no members"
fi

if [ $err -ne 0 ]; then
	cat "${job}/vm.log" "${job}/report.txt"
else
	echo "$rows"
	echo "dprof guest slab test [Success]"
fi
cleanup
exit $err
