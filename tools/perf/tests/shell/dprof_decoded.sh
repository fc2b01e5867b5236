#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: samples written decoded when recorded give the same report
#
# At its end, perf dprof record writes the software sampler's samples with
# the data address it decoded from their registers, and a word of what
# the decoding said, in place of the registers (util/dprof/decoded.h).
# Record twins.c with --no-prune (every register kept), prune a copy as
# record does, and check:
#  - record's own file is written decoded (no REGS_INTR in its sampler);
#  - the prune says how many samples it wrote decoded; those that kept
#    their registers are samples whose code it could not read (the
#    kernel's, without /proc/kcore or a vmlinux), and are no more;
#  - the file is smaller by at least 100 bytes a decoded sample;
#  - every view of the report is the same as the whole file's: the
#    profile, --samples (each sample's type), --json, classify;
#  - a second prune leaves the file as it is;
#  - a sample whose word has a bit no pass writes is one damaged record
#    skipped, said in the report, and the rest is read.

set -u

err=0
dprof_test="dprof decoded samples test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"

fail() {
	echo "${dprof_test} [Failed: $1]"
	err=1
}

dprof_user_setup dprof_decoded
command -v python3 > /dev/null || skip "no python3 to damage a sample"
if ! dprof_user_twins; then
	fail "build and record the test program"
	cleanup
	exit 1
fi

sampler_types() {
	perf evlist -v -i "$1" 2> /dev/null | grep -m1 '^cpu-clock[/:]' |
		sed -n 's/.*sample_type: \([A-Z_|]*\).*/\1/p'
}

case "|$(sampler_types "${data}")|" in
*"|REGS_INTR|"*) fail "record's own file kept the registers: $(sampler_types "${data}")" ;;
*"|ADDR|"*"|RAW|"*) ;;
*) fail "record's own file: sampler sample_type '$(sampler_types "${data}")'" ;;
esac

full="${dir}/full.data"
pruned="${dir}/pruned.data"
if ! perf dprof record --sampler=soft --no-kmem --no-heap --no-prune -o "${full}" \
		-- "${dir}/twins" 1 > "${dir}/full.out" 2>&1; then
	fail "record --no-prune"
	cat "${dir}/full.out"
	cleanup
	exit 1
fi
case "|$(sampler_types "${full}")|" in
*"|REGS_INTR|"*) ;;
*) fail "--no-prune did not keep the registers: $(sampler_types "${full}")" ;;
esac
cp "${full}" "${pruned}"
perf dprof prune -i "${pruned}" > "${dir}/prune.out" 2>&1 || fail "perf dprof prune"
decoded=$(sed -n 's/^\[ perf dprof: \([0-9]*\) access samples written with their .*/\1/p' \
	"${dir}/prune.out")
regs=$(sed -n 's/^\[ perf dprof: \([0-9]*\) access samples kept their registers.*/\1/p' \
	"${dir}/prune.out")
regs=${regs:-0}
if [ -z "${decoded}" ] || [ "${decoded}" -lt 1000 ]; then
	fail "the prune wrote ${decoded:-no} samples decoded: $(cat "${dir}/prune.out")"
	decoded=0
fi
case "|$(sampler_types "${pruned}")|" in
*"|REGS_INTR|"*|"||") fail "the pruned file's sampler: '$(sampler_types "${pruned}")'" ;;
esac

# perf script: the samples that kept their registers are the kernel's
kernel=$(perf script -i "${full}" -F ip 2> /dev/null | grep -c '^ *ffff')
if [ -r /proc/kcore ] && [ "$(id -u)" = 0 ]; then
	[ "${regs}" = 0 ] || fail "${regs} samples kept their registers with /proc/kcore"
elif [ "${regs}" -gt "${kernel}" ]; then
	fail "${regs} samples kept their registers, more than the ${kernel} kernel ones"
fi

a=$(stat -c %s "${full}")
b=$(stat -c %s "${pruned}")
[ $((a - b)) -ge $((100 * decoded)) ] ||
	fail "the file went from ${a} to ${b} bytes for ${decoded} samples decoded"

views="profile:
samples:--samples
json:--json
classify:--view=classify"
while IFS=: read -r name opts; do
	for f in full pruned; do
		# shellcheck disable=SC2086
		perf dprof report --stdio -i "${dir}/${f}.data" ${opts} 2> "${dir}/${f}.err" |
			sed 's/"input": "[^"]*"//' > "${dir}/${f}.${name}"
	done
	if [ ! -s "${dir}/full.${name}" ] ||
	   ! cmp -s "${dir}/full.${name}" "${dir}/pruned.${name}"; then
		fail "${name}: the report of the decoded file differs"
		diff "${dir}/full.${name}" "${dir}/pruned.${name}" | head -n 10
	fi
done <<< "${views}"

cp "${pruned}" "${dir}/again.data"
perf dprof prune -i "${dir}/again.data" > /dev/null 2>&1 || fail "a second prune"
cmp -s "${pruned}" "${dir}/again.data" || fail "a second prune changed the file"

# one decoded sample's word given a bit no pass writes
if ! python3 - "${pruned}" "${dir}/damaged.data" > "${dir}/damage.out" 2>&1 <<'EOF'
import struct, sys

d = bytearray(open(sys.argv[1], 'rb').read())
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<QQQQQ', d, 16)
ids = {}
attrs = []
for i in range(attrs_size // attr_size):
    at = attrs_off + i * attr_size
    atype, sample_type = struct.unpack_from('<I', d, at)[0], struct.unpack_from('<Q', d, at + 24)[0]
    attrs.append((atype, sample_type))
    id_off, id_size = struct.unpack_from('<QQ', d, at + attr_size - 16)
    for j in range(id_size // 8):
        ids[struct.unpack_from('<Q', d, id_off + 8 * j)[0]] = (atype, sample_type)
# one event: its samples need no identifier
# IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, then RAW
before = [1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 9, 1 << 7, 1 << 8]
off = data_off
while off < data_off + data_size:
    rtype, misc, size = struct.unpack_from('<IHH', d, off)
    if rtype == 9:
        if len(attrs) == 1:
            atype, st = attrs[0]
        else:
            atype, st = ids.get(struct.unpack_from('<Q', d, off + 8)[0], (None, 0))
        if atype == 1 and st & (1 << 10) and st & (1 << 3):
            raw = off + 8 + 8 * sum(1 for b in before if st & b)
            rsize, word = struct.unpack_from('<II', d, raw)
            if rsize == 4:
                struct.pack_into('<I', d, raw + 4, word | (1 << 30))
                open(sys.argv[2], 'wb').write(d)
                sys.exit(0)
    off += size
sys.exit('no decoded sample found')
EOF
then
	fail "damage a decoded sample: $(cat "${dir}/damage.out")"
else
	perf dprof report --stdio -i "${dir}/damaged.data" > "${dir}/damaged.txt" 2>&1 ||
		fail "report of a file with a damaged word"
	grep -q '^# DAMAGED: 1 damaged records skipped' "${dir}/damaged.txt" ||
		fail "the damaged word is not told: $(grep -m3 '^#' "${dir}/damaged.txt")"
	# the rest of the samples read as before: one fewer
	n_ok=$(sed -n 's/^# resolved [0-9.]*% of \([0-9]*\) samples.*/\1/p' "${dir}/pruned.profile")
	n_bad=$(sed -n 's/^# resolved [0-9.]*% of \([0-9]*\) samples.*/\1/p' "${dir}/damaged.txt")
	[ -n "${n_ok}" ] && [ "${n_bad:-0}" = $((n_ok - 1)) ] ||
		fail "samples: '${n_ok}' whole, '${n_bad}' with one damaged"
fi

if [ ${err} -eq 0 ]; then
	echo "${decoded} samples decoded, ${regs} kept their registers; ${a} -> ${b} bytes"
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
