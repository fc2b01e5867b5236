#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: foreign and damaged perf.data files
#
# A PEBS load-latency recording from another machine must be decoded
# (levels, latency) even though nothing resolves here; a file cut in its
# data section is reported up to where the data ends, and says where; one
# cut before its data fails with a message that says so.  A damaged record is skipped and
# counted; a damaged record size ends the data there, and the report of
# what came before says where.

set -u

shelldir=$(dirname "$0")
# the overlay keeps our test data next to the C suite
ext=$(readlink -f "${shelldir}/../dprof/data/perf.data.weight_struct")
err=0
tmp=$(mktemp -d /tmp/__perf_test.dprof_inputs.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

if [ ! -f "${ext}" ]; then
	echo "dprof inputs test [Skipped: ${ext} not found]"
	exit 2
fi

cp "${ext}" "${tmp}/pebs.data"
if ! perf dprof report --stdio -i "${tmp}/pebs.data" > "${tmp}/out" 2>&1; then
	echo "dprof inputs test [Failed: report of a PEBS recording]"
	err=1
fi
# 14 samples, 10 of them not an L1 hit (LFB 5, L3 4, L2 1); latency measured
grep -q '^# resolved .* of 14 samples' "${tmp}/out" || err=1
grep -q '^# sampled misses (not an L1 hit): 10 of 14 ' "${tmp}/out" || err=1
grep -q '^# average sampled latency: ' "${tmp}/out" || err=1
# data_src by level, as perf mem report counts them: LFB 5, L3 4, L1 4, L2 1
grep -q '^# data source of 14 memory-op samples: L1 28.6%, LFB/MAB 35.7%, L2 7.1%, L3 28.6%$' \
	"${tmp}/out" || err=1
grep -q '^# average sampled latency: 123 cycles over 14 samples$' "${tmp}/out" || err=1
# nothing is invented: with nothing resolved there is no row
if grep -qE '^  [^ ].* [0-9.]+%' "${tmp}/out"; then
	echo "dprof inputs test [Failed: rows for a file whose addresses cannot resolve]"
	err=1
fi
[ ${err} -eq 0 ] || { echo "dprof inputs test [Failed: PEBS decode]"; cat "${tmp}/out"; }

# a recording cut in half, inside its data section: what it holds is
# reported, the header says where the data ends (the start of the record
# the cut split, found here by walking the records) and counts only the
# samples before it; the file is untouched
# (cut inside its middle sample record when python3 is there to find it)
cut_len=$(($(stat -c %s "${ext}") / 2))
if command -v python3 > /dev/null; then
	cut_len=$(python3 - "${ext}" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
pos, samples = off, []
while pos + 8 <= off + size:
    if struct.unpack_from("<I", b, pos)[0] == 9:
        samples.append(pos)
    pos += struct.unpack_from("<H", b, pos + 6)[0] or 8
print(samples[len(samples) // 2] + 12)
PY
)
fi
head -c "${cut_len}" "${ext}" > "${tmp}/cut.data"
sum=$(md5sum < "${tmp}/cut.data")
if ! perf dprof report --stdio -i "${tmp}/cut.data" > "${tmp}/out2" 2>&1; then
	echo "dprof inputs test [Failed: a file cut in its data section gets no report]"
	cat "${tmp}/out2"
	err=1
elif command -v python3 > /dev/null; then
	# offset of the first record past the cut, and the samples before it
	read -r cut_at cut_samples < <(python3 - "${tmp}/cut.data" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
pos, n = off, 0
while pos + 8 <= len(b):
    typ, sz = struct.unpack_from("<I", b, pos)[0], struct.unpack_from("<H", b, pos + 6)[0]
    if pos + sz > len(b):
        break
    n += typ == 9
    pos += sz
print("%#x %d" % (pos, n))
PY
)
	want="^# TRUNCATED: the file is cut short: its data ends at file offset ${cut_at}, "
	if ! grep -q "$want" "${tmp}/out2"; then
		echo "dprof inputs test [Failed: no 'TRUNCATED: ... data ends at file offset" \
		     "${cut_at}']"
		cat "${tmp}/out2"
		err=1
	elif ! grep -q "^# resolved .* of ${cut_samples} samples" "${tmp}/out2"; then
		echo "dprof inputs test [Failed: the cut file's ${cut_samples} samples are not" \
		     "reported]"
		cat "${tmp}/out2"
		err=1
	fi
fi
[ "${sum}" = "$(md5sum < "${tmp}/cut.data")" ] ||
	{ echo "dprof inputs test [Failed: input modified]"; err=1; }
# cut before its data: one line, non-zero exit
head -c 200 "${ext}" > "${tmp}/cut2.data"
if perf dprof report --stdio -i "${tmp}/cut2.data" > "${tmp}/out2" 2>&1; then
	echo "dprof inputs test [Failed: a file cut before its data accepted]"
	err=1
elif ! grep -q 'is truncated' "${tmp}/out2"; then
	echo "dprof inputs test [Failed: no 'is truncated' message]"
	cat "${tmp}/out2"
	err=1
fi

# damaged: the header's data size, or the last record's size (python3)
# damaged NAME PATTERN: fails within 30 s, not by a signal, saying PATTERN
damaged() {
	local rc

	timeout 30 perf dprof report --stdio -i "${tmp}/$1" > "${tmp}/out3" 2>&1
	rc=$?
	# perf exits with 256 - errno; 124 is timeout's, 129-159 a signal's
	if [ $rc = 0 ] || [ $rc = 124 ] || { [ $rc -gt 128 ] && [ $rc -lt 160 ]; }; then
		echo "dprof inputs test [Failed: $1: exit $rc (0: accepted, 124: hang, 129-159:" \
		     "signal)]"
		err=1
	elif ! grep -q "$2" "${tmp}/out3"; then
		echo "dprof inputs test [Failed: $1: no '$2' message]"
		cat "${tmp}/out3"
		err=1
	fi
}
if command -v python3 > /dev/null; then
	python3 - "${ext}" "${tmp}" <<'PY'
import struct, sys
src, tmp = sys.argv[1:]
b = bytearray(open(src, "rb").read())
# struct perf_file_header: magic, size, attr_size, attrs{offset, size}, data{offset, size}
off, size = struct.unpack_from("<QQ", b, 40)
huge = bytearray(b)
struct.pack_into("<Q", huge, 48, (1 << 64) - 1)
open(tmp + "/huge.data", "wb").write(huge)
# the data section moved to an odd offset inside it (a fuzz mutant: the
# reader read misaligned records, UBSan's report)
odd = bytearray(b)
struct.pack_into("<Q", odd, 40, off + size // 2 + 2)
open(tmp + "/odd.data", "wb").write(odd)
# the last event attribute's ids section: 2^63 bytes (perf allocates by it)
ids = bytearray(b)
attr_size, attrs, attrs_size = struct.unpack_from("<QQQ", b, 16)
struct.pack_into("<Q", ids, attrs + attrs_size - 8, 1 << 63)
open(tmp + "/ids.data", "wb").write(ids)
pos = last = off
while pos + 8 <= off + size:		# struct perf_event_header: type, misc, size
    last = pos
    pos += struct.unpack_from("<H", b, pos + 6)[0] or 8
long = bytearray(b)
struct.pack_into("<H", long, last + 6, 0xfff8)
open(tmp + "/long.data", "wb").write(long)
open(tmp + "/long.offset", "w").write("%#x" % last)
# the id of the second sample names no event: the sample_type bits
# before it (IDENTIFIER first, else IP, TID, TIME, ADDR) give its place
attr = struct.unpack_from("<Q", b, 24)[0]
stype = struct.unpack_from("<Q", b, attr + 24)[0]
idpos = 0 if stype & (1 << 16) else sum(1 for k in range(4) if stype & (1 << k))
samples = []
pos = off
while pos + 8 <= off + size:
    if struct.unpack_from("<I", b, pos)[0] == 9:	# PERF_RECORD_SAMPLE
        samples.append(pos)
    pos += struct.unpack_from("<H", b, pos + 6)[0] or 8
struct.pack_into("<Q", b, samples[1] + 8 + 8 * idpos, 0xdeadbeefdeadbeef)
open(tmp + "/badid.data", "wb").write(b)
# the third sample 4 bytes longer: the kernel pads its records to 8 bytes,
# a size that is not a multiple of 8 is damage (the next record misaligned)
k = bytearray(open(src, "rb").read())
struct.pack_into("<H", k, samples[2] + 6, struct.unpack_from("<H", k, samples[2] + 6)[0] + 4)
open(tmp + "/ksize.data", "wb").write(k)
open(tmp + "/ksize.offset", "w").write("%#x" % samples[2])
# a record of 12 bytes first in the data: of a type perf knows
# (PERF_RECORD_FINISHED_ROUND; perf inject wrote feature records that it
# did not pad) it is read, and so are the misaligned records after it; of
# a type perf does not know it is damage
def insert(name, rtype):
    u = bytearray(open(src, "rb").read())
    rec = struct.pack("<IHH", rtype, 0, 12) + bytes(4)
    nsec = bin(int.from_bytes(u[72:104], "little")).count("1")	# feature sections
    for sec in range(off + size, off + size + 16 * nsec, 16):	# after the data
        struct.pack_into("<Q", u, sec, struct.unpack_from("<Q", u, sec)[0] + len(rec))
    struct.pack_into("<Q", u, 48, size + len(rec))
    u[off:off] = rec
    open(tmp + "/" + name, "wb").write(u)
insert("user12.data", 68)
insert("unknown12.data", 0xffff)
open(tmp + "/data.offset", "w").write("%#x" % off)
PY
	damaged huge.data "is damaged: its data section"
	damaged odd.data "not on an 8-byte boundary"
	damaged ids.data "the ids of its event attribute at byte"

	# the reader stops at the damaged size and the report says where
	if ! perf dprof report --stdio -i "${tmp}/long.data" > "${tmp}/out4" 2>&1; then
		echo "dprof inputs test [Failed: damaged last record size loses the report]"
		cat "${tmp}/out4"
		err=1
	elif ! grep -q \
		"^# DAMAGED: data unreadable from file offset $(cat "${tmp}/long.offset") on" \
		"${tmp}/out4"; then
		echo "dprof inputs test [Failed: no 'unreadable from file offset" \
		     "$(cat "${tmp}/long.offset")']"
		cat "${tmp}/out4"
		err=1
	fi

	# one sample skipped and counted, as perf report counts it; the rest reported
	total() { sed -n 's/^# resolved .* of \([0-9]*\) samples.*/\1/p' "$1"; }
	if ! perf dprof report --stdio -i "${tmp}/badid.data" > "${tmp}/out5" 2>&1; then
		echo "dprof inputs test [Failed: one damaged record loses the report]"
		cat "${tmp}/out5"
		err=1
	elif ! grep -q '^# DAMAGED: 1 damaged records skipped' "${tmp}/out5"; then
		echo "dprof inputs test [Failed: no '1 damaged records skipped' header line]"
		cat "${tmp}/out5"
		err=1
	elif [ "$(total "${tmp}/out5")" != "$(($(total "${tmp}/out") - 1))" ]; then
		echo "dprof inputs test [Failed: $(total "${tmp}/out5") samples reported, not" \
		     "$(total "${tmp}/out") - 1]"
		err=1
	elif ! perf report --stdio -i "${tmp}/badid.data" 2>&1 >/dev/null |
		grep -q '^1 damaged records skipped'; then
		echo "dprof inputs test [Failed: perf report does not count the damaged record]"
		err=1
	fi
	if ! perf dprof report --json -i "${tmp}/badid.data" 2>/dev/null |
		grep -q '"damaged_records": *1'; then
		echo "dprof inputs test [Failed: no \"damaged_records\": 1 in the JSON]"
		err=1
	fi

	# a sample's size 8k + 4: the reader stops there (bad event size), the
	# report of the two samples before it says where
	if ! perf dprof report --stdio -i "${tmp}/ksize.data" > "${tmp}/out8" 2>&1; then
		echo "dprof inputs test [Failed: a sample size 8k + 4 loses the report]"
		cat "${tmp}/out8"
		err=1
	elif ! grep -q "bad event size" "${tmp}/out8" ||
	     ! grep -q \
		"^# DAMAGED: data unreadable from file offset $(cat "${tmp}/ksize.offset") on" \
		"${tmp}/out8" || [ "$(total "${tmp}/out8")" != 2 ]; then
		echo "dprof inputs test [Failed: a sample size 8k + 4 is not a bad event size at" \
		     "$(cat "${tmp}/ksize.offset") with 2 samples before it]"
		cat "${tmp}/out8"
		err=1
	fi
	# a user record of 12 bytes (old perf inject's feature records): all read
	if ! perf dprof report --stdio -i "${tmp}/user12.data" > "${tmp}/out9" 2>&1 ||
	   grep -q 'DAMAGED' "${tmp}/out9" || [ "$(total "${tmp}/out9")" != 14 ]; then
		echo "dprof inputs test [Failed: a user record of 12 bytes: not all 14 samples" \
		     "read]"
		cat "${tmp}/out9"
		err=1
	fi
	perf dprof report --stdio -i "${tmp}/unknown12.data" > "${tmp}/out10" 2>&1
	if ! grep -q "^$(cat "${tmp}/data.offset") \[0xc\]: bad event size" "${tmp}/out10"; then
		echo "dprof inputs test [Failed: a record of 12 bytes of an unknown type is not a" \
		     "bad event size]"
		cat "${tmp}/out10"
		err=1
	fi
fi

# damaged TRACING_DATA (the kmem tracepoints' formats): perf's reader
# checks it before libtraceevent, which crashed on both, parses it
if command -v python3 > /dev/null &&
   perf test -w dprof_cachemodel false_sharing 1 2 16384 7 pebs "${tmp}/tp.data" 200 \
	> /dev/null 2>&1; then
	python3 - "${tmp}" <<'PY'
import sys
tmp = sys.argv[1]
b = bytearray(open(tmp + "/tp.data", "rb").read())
# a print fmt reading a field the event does not have
p = b.find(b"REC->gfp_flags")
fmt = bytearray(b)
fmt[p + 10] = ord("h")
open(tmp + "/tp-fmt.data", "wb").write(fmt)
# binary bytes inside an event format
p = b.find(b"field:const void * ptr")
bin = bytearray(b)
bin[p + 13] = 0xea
open(tmp + "/tp-bin.data", "wb").write(bin)
PY
	damaged tp-fmt.data "tracing data damaged: a kmem event's print fmt reads REC->gfp_fhags"
	damaged tp-bin.data "tracing data damaged: a kmem event format is not text"

	# cut in its data: the tracepoint formats are lost with the feature
	# sections; their records are skipped, as many as perf report skips
	head -c "$(python3 -c 'import struct, sys
off, size = struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(64), 40)
print(off + size // 2)' "${tmp}/tp.data")" "${tmp}/tp.data" > "${tmp}/tp-cut.data"
	skipped=$(perf report --stdio -i "${tmp}/tp-cut.data" 2>&1 >/dev/null |
		  sed -n 's/^\([0-9]*\) tracepoint samples skipped.*/\1/p')
	if ! timeout 60 perf dprof report --stdio -i "${tmp}/tp-cut.data" > "${tmp}/out6" 2>&1; then
		echo "dprof inputs test [Failed: a cut recording of kmem events gets no report]"
		cat "${tmp}/out6"
		err=1
	elif [ -z "${skipped}" ] || [ "${skipped}" = 0 ] ||
	     ! grep -q \
		"^# TRUNCATED: its feature sections are lost: ${skipped} tracepoint records" \
		"${tmp}/out6"; then
		echo "dprof inputs test [Failed: perf report skipped '${skipped}' tracepoint" \
		     "samples, the header says otherwise]"
		cat "${tmp}/out6"
		err=1
	fi
fi

# a tracepoint sample whose raw size is 4 bytes short: the kernel pads
# the u32 size and the raw data to a multiple of 8, and every field read
# after a size that breaks it is misaligned (a fuzz mutant: UBSan's report
# at the data_src read); perf refuses the sample, dprof skips and counts it
if [ -f "${tmp}/tp.data" ] && python3 - "${tmp}/tp.data" "${tmp}/tp-raw.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
attr_size, attrs, attrs_size = struct.unpack_from("<QQQ", b, 16)
off, size = struct.unpack_from("<QQ", b, 40)
RAW, IDENT = 1 << 10, 1 << 16
before = [16, 0, 1, 2, 3, 6, 9, 7, 8]	# IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
raw_ids = {}
for a in range(attrs, attrs + attrs_size, attr_size):
    stype = struct.unpack_from("<Q", b, a + 24)[0]
    if not stype & IDENT:
        sys.exit(1)
    if stype & RAW and not stype & (3 << 4):	# no READ, CALLCHAIN before it
        ids_off, ids_size = struct.unpack_from("<QQ", b, a + attr_size - 16)
        for i in range(ids_off, ids_off + ids_size, 8):
            raw_ids[struct.unpack_from("<Q", b, i)[0]] = stype
pos = off
while pos + 8 <= off + size:
    typ, sz = struct.unpack_from("<I", b, pos)[0], struct.unpack_from("<H", b, pos + 6)[0]
    if typ == 9 and struct.unpack_from("<Q", b, pos + 8)[0] in raw_ids:
        stype = raw_ids[struct.unpack_from("<Q", b, pos + 8)[0]]
        r = pos + 8 + 8 * sum(1 for k in before if stype >> k & 1)
        struct.pack_into("<I", b, r, struct.unpack_from("<I", b, r)[0] - 4)
        open(sys.argv[2], "wb").write(b)
        sys.exit(0)
    pos += sz or 8
sys.exit(1)
PY
then
	if ! timeout 60 perf dprof report --stdio -i "${tmp}/tp-raw.data" > "${tmp}/out7" 2>&1; then
		echo "dprof inputs test [Failed: a misaligning raw size loses the report]"
		cat "${tmp}/out7"
		err=1
	elif ! grep -q '^# DAMAGED: 1 damaged records skipped' "${tmp}/out7"; then
		echo "dprof inputs test [Failed: a raw size that misaligns the sample is not a" \
		     "damaged record]"
		grep '^#' "${tmp}/out7"
		err=1
	fi
else
	echo "dprof inputs test: no tracepoint recording here, a misaligning raw size not tested"
fi

# feature_section FILE BIT: "offset size" of FILE's feature section BIT
# (a HEADER_* number); fails when FILE has none
feature_section() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
bit = int(sys.argv[2])
off, size = struct.unpack_from("<QQ", b, 40)
feat = struct.unpack_from("<4Q", b, 72)
bits = [i for i in range(256) if feat[i // 64] >> (i % 64) & 1]
if bit not in bits:
    sys.exit(1)
print(*struct.unpack_from("<QQ", b, off + size + 16 * bits.index(bit)))
PY
}

# poke FILE OFFSET BYTE...: overwrite FILE's bytes at OFFSET (hex bytes)
poke() {
	local f=$1 o=$2

	shift 2
	# shellcheck disable=SC2059
	printf "$(printf '\\x%s' "$@")" | dd of="$f" bs=1 seek="$o" conv=notrunc status=none
}

# a damaged count of PMU capabilities (HEADER_PMU_CAPS, which recordings
# made here have): perf allocated and zeroed ~5.5 GB by it, seconds of CPU
# for a tiny file (a fuzz "hang" under ASan); now it is refused at once
if command -v python3 > /dev/null &&
   perf record -q -e cpu-clock -o "${tmp}/caps.data" -- true > /dev/null 2>&1 &&
   sec=$(feature_section "${tmp}/caps.data" 31) &&	# HEADER_PMU_CAPS
   read -r o _ <<< "$sec" &&
   poke "${tmp}/caps.data" "$o" 4a 08 42 08	# what a fuzz bit flip made of 0
then
	# CPU seconds, not wall time: the check holds on a loaded machine
	(ulimit -t 1; exec perf report --header-only -i "${tmp}/caps.data") > /dev/null 2>&1
	rc=$?
	if [ $rc -gt 128 ]; then
		echo "dprof inputs test [Failed: a damaged PMU capability count: perf report" \
		     "--header-only over 1 s of CPU (exit $rc)]"
		err=1
	fi
	timeout 60 perf dprof report --stdio -i "${tmp}/caps.data" > /dev/null 2>&1
	rc=$?
	if [ $rc = 124 ] || { [ $rc -gt 128 ] && [ $rc -lt 160 ]; }; then
		echo "dprof inputs test [Failed: a damaged PMU capability count: exit $rc]"
		err=1
	fi
else
	echo "dprof inputs test: no recording with PMU capabilities here, their count not tested"
fi

# a damaged arch string in the header (HEADER_ARCH, as a fuzz bit flip
# made it: "x86\xe664"): perf's disassembler knows no such arch, and the
# data-type profiling of a program with DWARF went on without the
# disassembly and segfaulted (perf patch 0037).  The report comes, says
# once that operand typing is off, and perf is not asked per function.
hash_src=$(readlink -f "${shelldir}/lib/dprof_user/hash.c")
if command -v python3 > /dev/null && command -v gcc > /dev/null &&
   perf version --build-options 2>/dev/null | grep -q 'dwarf_getlocations: \[ on' &&
   gcc -g -O2 -fno-inline -o "${tmp}/hash" "${hash_src}" 2> /dev/null &&
   perf dprof record --sampler=soft --no-kmem --no-heap -o "${tmp}/arch.data" \
	-- "${tmp}/hash" 0.5 > /dev/null 2>&1 &&
   sec=$(feature_section "${tmp}/arch.data" 6) &&	# HEADER_ARCH
   read -r o _ <<< "$sec" &&
   [ "$(dd if="${tmp}/arch.data" bs=1 skip=$((o + 4)) count=6 status=none)" = x86_64 ] &&
   poke "${tmp}/arch.data" $((o + 7)) e6
then
	perf dprof report --stdio -i "${tmp}/arch.data" > "${tmp}/out8" 2> "${tmp}/err8"
	rc=$?
	if [ $rc != 0 ]; then
		echo "dprof inputs test [Failed: a damaged arch string in the header: exit $rc]"
		cat "${tmp}/err8"
		err=1
	elif ! grep -q '^# DAMAGED: the header.s arch "x86\\xe664" is not one perf knows' \
		"${tmp}/out8"; then
		echo "dprof inputs test [Failed: a damaged arch string in the header: no header" \
		     "line]"
		head -20 "${tmp}/out8"
		err=1
	elif [ "$(grep -c 'arch' "${tmp}/err8")" != 1 ]; then
		echo "dprof inputs test [Failed: a damaged arch string in the header: not said" \
		     "once]"
		cat "${tmp}/err8"
		err=1
	fi
else
	echo "dprof inputs test: no gcc, DWARF or software sampler here, a damaged arch string" \
	     "not tested"
fi

# The same files with their events delivered in a thread of their own
# (--event-thread=on; these are too small for auto): the same report, the
# same exit status, whatever is damaged in them.
for f in pebs.data cut.data cut2.data long.data badid.data tp-cut.data tp-raw.data; do
	[ -f "${tmp}/${f}" ] || continue
	timeout 60 perf dprof report --stdio --event-thread=off -i "${tmp}/${f}" \
		> "${tmp}/off.out" 2>/dev/null
	off=$?
	timeout 60 perf dprof report --stdio --event-thread=on -i "${tmp}/${f}" \
		> "${tmp}/on.out" 2>/dev/null
	on=$?
	if [ ${on} -ne ${off} ] || ! cmp -s "${tmp}/off.out" "${tmp}/on.out"; then
		echo "dprof inputs test [Failed: ${f}: --event-thread=on exits ${on} (off:" \
		     "${off}), its report differs]"
		diff "${tmp}/off.out" "${tmp}/on.out" | head -10
		err=1
	fi
done

# no such file
if perf dprof report --stdio -i "${tmp}/missing.data" > /dev/null 2>&1; then
	echo "dprof inputs test [Failed: missing file accepted]"
	err=1
fi

[ ${err} -eq 0 ] && echo "dprof inputs test [Success]"
exit ${err}
