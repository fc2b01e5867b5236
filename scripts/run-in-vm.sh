#!/bin/bash
# run-in-vm.sh KERNEL CMD...
#
# Boot KERNEL (a bzImage, or a vmlinux: the guest config has PVH) under QEMU
# TCG and run CMD there as root with bash; CMD's stdout+stderr stream to our
# stdout, and we exit with its status.  One argument is taken as a shell
# script (`run-in-vm.sh K 'nproc; ls'`); several are quoted as one command
# (`run-in-vm.sh K perf stat -- sleep 1`).
#
# Guest file system:
#   /                   host / over virtio-9p, read-only (host /tmp is hidden:
#                       the guest mounts a fresh tmpfs on /tmp, /run, /dev/shm)
#   /mnt                the job dir, writable; CMD's cwd.  Put results here.
#                       (9p cache=mmap: writes go straight to the host; for
#                       big outputs write to /tmp first and copy, a 9p write
#                       per perf ring-buffer flush shows up in -a profiles)
#   $REPO, $BUILD_DIR   this repository and the build dir, read-only, at their
#                       host paths (even under /tmp), so $BUILD_DIR/perf/perf
#                       and repo scripts run as they are.  More with VM_SHARES.
# tracefs and debugfs are mounted, kptr_restrict=0, perf_event_paranoid=-1,
# HOME=/tmp, REPO and BUILD_DIR exported.
#
# env: VM_TIMEOUT  seconds (default 600)          VM_SMP  CPUs (default 2)
#      VM_MEM      (default 2G)                   VM_APPEND  extra kernel args
#      VM_JOBDIR   host job dir, created if needed and kept (default: a temp
#                  dir, removed afterwards unless VM_KEEP=1)
#      VM_CONSOLE=1  print the guest's kernel console to stderr afterwards
#      VM_SHARES   extra host dirs (colon-separated) to mount read-only at
#                  their own paths
#      VM_ENV      names of host environment variables to export in the guest
#      VM_SPARE_9P  number of spare virtio-9p channels, tags spare0, spare1...,
#                  that nobody mounts: the job dir again, read-only, for a
#                  guest command that mounts and unmounts one (each 9p mount
#                  creates a slab cache, 9p-fcall-cache-N, its unmount
#                  destroys it: the guest has no modules)
#      VM_TIMES=1  print boot and run times to stderr
#      VM_ACCEL    tcg (default) or kvm (does not work on PVM-nested hosts)
# exit: CMD's status; 124 = timeout; 125 = the guest died without reporting a
#       status (the console tail is printed); 2 = usage or setup error.
# Guest kernel needs: 9P_FS, NET_9P_VIRTIO, VIRTIO_PCI, SERIAL_8250_CONSOLE,
#       DEVTMPFS, TMPFS, BINFMT_SCRIPT, MAGIC_SYSRQ, PROC_FS, SYSFS, and ACPI
#       for more than one CPU: scripts/guest/dprof-guest.config has them all.
set -eu

usage() { echo "usage: $0 KERNEL CMD..." >&2; exit 2; }
die() { echo "run-in-vm: $*" >&2; exit 2; }
[ $# -ge 2 ] || usage

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
kernel=$(readlink -f "$1"); shift
[ -r "$kernel" ] || die "no kernel image $kernel (build one with scripts/build-kernel.sh)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found: apt-get install qemu-system-x86"
timeout_s=${VM_TIMEOUT:-600}

if [ -n "${VM_JOBDIR:-}" ]; then
	mkdir -p "$VM_JOBDIR" || die "cannot create VM_JOBDIR=$VM_JOBDIR"
	job=$(cd "$VM_JOBDIR" && pwd)
	keep=1
else
	job=$(mktemp -d "${TMPDIR:-/tmp}/dprof-vm.XXXXXX")
	keep=${VM_KEEP:-0}
fi
case $job in
*[[:space:],]*) die "job dir '$job' has a space or a comma: QEMU's -fsdev and the kernel command line cannot take it" ;;
esac
rm -f "$job/.rc" "$job/.console" "$job/.uptime"
cleanup() { [ "$keep" = 1 ] || rm -rf "$job"; }
trap cleanup EXIT

# --- shares at their host paths: REPO, BUILD_DIR, VM_SHARES (nested ones dropped) ---
shares=()
add_share() {
	local d s
	d=$(cd "$1" 2>/dev/null && pwd) || { echo "run-in-vm: share $1 does not exist, skipped" >&2; return 0; }
	case $d in *[[:space:],]*) die "cannot share '$d': QEMU's -fsdev cannot take a space or a comma" ;; esac
	[ "$d" != / ] || return 0
	for s in "${shares[@]}"; do
		case $d/ in "$s"/*) return 0 ;; esac
	done
	shares+=("$d")
}
add_share "$REPO"
[ ! -d "$BUILD_DIR" ] || add_share "$BUILD_DIR"
IFS=: read -r -a extra <<< "${VM_SHARES:-}"
for s in "${extra[@]}"; do [ -z "$s" ] || add_share "$s"; done
# a share nested in a later, wider one: keep only the wider
outer=()
for s in "${shares[@]}"; do
	nested=0
	for t in "${shares[@]}"; do
		[ "$s" != "$t" ] && case $s/ in "$t"/*) nested=1 ;; esac
	done
	[ $nested = 1 ] || outer+=("$s")
done
shares=("${outer[@]}")

# --- the command, with the environment it needs ---
{
	printf 'export REPO=%q BUILD_DIR=%q\n' "$REPO" "$BUILD_DIR"
	for v in ${VM_ENV:-}; do
		[ -z "${!v+x}" ] || printf 'export %s=%q\n' "$v" "${!v}"
	done
	if [ $# -eq 1 ]; then
		printf '%s\n' "$1"
	else
		printf '%q ' "$@"; echo
	fi
} > "$job/.cmd"

# --- guest PID 1.  Read from the 9p root at its host path, before the guest
# covers /tmp, so $job may live under the host's /tmp. ---
{
cat <<'INIT'
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TERM=dumb LANG=C.UTF-8 JOB=/mnt
con=/dev/ttyS0
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || echo "init: no tracefs" >$con
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || echo "init: no debugfs" >$con
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o,cache=mmap job /mnt || echo "init: cannot mount the job share" >$con
INIT
i=0
for s in "${shares[@]}"; do
	printf 'mkdir -p %q && mount -t 9p -o $o,cache=loose,ro share%d %q || echo "init: cannot mount share%d at %q" >$con\n' \
		"$s" $i "$s" $i "$s"
	i=$((i + 1))
done
cat <<'INIT'
hostname guest 2>/dev/null
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
ulimit -n 65536
stty -F /dev/ttyS1 raw -echo 2>/dev/null
cd /mnt
read -r up _ < /proc/uptime
echo "$up" > /mnt/.uptime
echo "init: command starts at uptime ${up}s, $(nproc) CPUs" >$con
/bin/bash /mnt/.cmd </dev/null >/dev/ttyS1 2>&1
rc=$?
read -r up _ < /proc/uptime
echo "$up" >> /mnt/.uptime
echo "$rc" > /mnt/.rc
echo "init: command rc=$rc at uptime ${up}s" >$con
sync
echo b > /proc/sysrq-trigger	# reset; qemu -no-reboot then exits
sleep 10
INIT
} > "$job/.init"
chmod 755 "$job/.init"

case ${VM_ACCEL:-tcg} in
kvm) accel=(-accel kvm -cpu host,-arch-capabilities) ;;
*) accel=(-accel tcg,thread=multi -cpu max) ;;
esac
fsdev=(-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=root,mount_tag=hostroot
	-fsdev local,id=job,path="$job",security_model=none,multidevs=remap
	-device virtio-9p-pci,fsdev=job,mount_tag=job)
i=0
for s in "${shares[@]}"; do
	fsdev+=(-fsdev local,id=share$i,path="$s",security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=share$i,mount_tag=share$i)
	i=$((i + 1))
done
for ((i = 0; i < ${VM_SPARE_9P:-0}; i++)); do
	fsdev+=(-fsdev local,id=spare$i,path="$job",security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=spare$i,mount_tag=spare$i)
done

# QEMU runs in the background so that an interrupt (^C, TERM) stops it
# rather than leaving it to the timeout: timeout(1) puts itself into a
# process group of its own, out of reach of the terminal's signals.
t0=$(date +%s.%N)
interrupted=0
timeout -k 10 "$timeout_s" qemu-system-x86_64 "${accel[@]}" \
	-machine q35 -smp "${VM_SMP:-2}" -m "${VM_MEM:-2G}" \
	-display none -monitor none -no-reboot -nodefaults \
	-serial file:"$job/.console" -chardev stdio,id=out,signal=off -serial chardev:out \
	-kernel "$kernel" \
	-append "console=ttyS0 loglevel=4 root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro init=$job/.init panic=-1 nokaslr ${VM_APPEND:-}" \
	"${fsdev[@]}" </dev/null &
qpid=$!
trap 'interrupted=1; kill -TERM $qpid 2>/dev/null' INT TERM HUP
while :; do
	qrc=0
	wait $qpid || qrc=$?
	kill -0 $qpid 2>/dev/null || break
done
trap - INT TERM HUP
t1=$(date +%s.%N)

# the console line comes first: once (in one CI run) the guest said rc=0
# there and reset, and .rc on the 9p share never reached the host
con_rc=$(sed -n 's/^init: command rc=\([0-9]*\) at uptime .*/\1/p' "$job/.console" 2>/dev/null | tail -n 1)
if [ -s "$job/.rc" ]; then
	rc=$(cat "$job/.rc")
elif [ -n "$con_rc" ]; then
	rc=$con_rc
	echo "run-in-vm: no status file from the guest; its console says rc=$rc" >&2
elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	rc=124
else
	rc=125
fi
if [ "${VM_TIMES:-0}" = 1 ]; then
	up0= up1=
	[ ! -f "$job/.uptime" ] || { read -r up0; read -r up1; } < "$job/.uptime" || true
	echo "run-in-vm: wall $(echo "$t1 - $t0" | bc)s; guest uptime at command start ${up0:-?}s, at end ${up1:-?}s" >&2
fi
if [ "${VM_CONSOLE:-0}" = 1 ]; then
	echo "----- run-in-vm: guest console (job $job) -----" >&2
	cat "$job/.console" >&2
elif [ $rc -ge 124 ] && [ ! -s "$job/.rc" ]; then
	echo "----- run-in-vm: guest console tail (qemu rc=$qrc, job $job) -----" >&2
	tail -n 40 "$job/.console" >&2 || true
fi
[ $rc -ne 124 ] || [ -s "$job/.rc" ] || echo "run-in-vm: TIMEOUT after ${timeout_s}s (VM_TIMEOUT)" >&2
if [ $interrupted = 1 ]; then
	echo "run-in-vm: interrupted" >&2
	exit 130
fi
[ $rc -ne 125 ] || echo "run-in-vm: the guest died without reporting a status" >&2
exit "$rc"
