#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: kmem tracepoint records carry no memory-sample fields
#
# perf dprof record passes -W -d (perf mem's flags) for the memory PMU's
# events; the kmem tracepoints recorded with them must not carry ADDR,
# DATA_SRC, WEIGHT or PHYS_ADDR, which the kernel never fills for a
# tracepoint (patches/perf/0020).  cpu-clock stands in for the memory
# PMU.  With the software sampler (perf dprof record --sampler=soft), the
# tracepoints must not carry its interrupt registers either
# (intr-regs=0, patches/perf/0021).  The record sizes perf script -D
# shows for kmem:kmalloc and kmem:kfree (fixed-size formats) must equal
# those of a plain perf record -e kmem:..., and perf evlist must show no
# such bits.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_kmem_bytes.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

kmem="-e kmem:kmalloc -e kmem:kfree"
if ! perf record -q -a $kmem -o "$tmp/plain.data" -- sleep 0.2 > /dev/null 2>&1; then
	echo "dprof kmem bytes test [Skipped: cannot record kmem tracepoints system-wide here]"
	exit 2
fi
perf record -q -a --sample-cpu -T -W -d --phys-data -e cpu-clock $kmem \
	-o "$tmp/mem.data" -- sleep 0.2 > /dev/null 2>&1 ||
	{ echo "dprof kmem bytes test [Failed: perf record -W -d --phys-data failed]"; exit 1; }

# bytes EVENT FILE: the size of EVENT's sample records, as perf script -D
# prints them ("<size> <count>" per distinct size)
bytes() {
	perf script -D -i "$2" 2>/dev/null | awk -v ev="$1" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 3; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/PERF_RECORD_/ { pending = 0 }
	/PERF_RECORD_SAMPLE/ {
		if (match($0, /\[0x[0-9a-f]+\]/))
			sz = hex(substr($0, RSTART + 1, RLENGTH - 2))
		pending = 1
		next
	}
	pending && index($0, " kmem:" ev ":") { n[sz]++; pending = 0 }
	END { for (s in n) print s }' | sort -n | tr '\n' ' '
}

perf dprof record --sampler=soft -a -o "$tmp/soft.data" -- sleep 0.2 > /dev/null 2>&1 ||
	{
		echo "dprof kmem bytes test [Failed: perf dprof record --sampler=soft -a failed]"
		exit 1
	}

err=0
for ev in kmalloc kfree; do
	plain=$(bytes $ev "$tmp/plain.data")
	for f in mem soft; do
		got=$(bytes $ev "$tmp/$f.data")
		if [ -z "$plain" ] || [ -z "$got" ]; then
			echo "kmem:$ev: no records (plain '$plain', $f '$got')"
		elif [ "$plain" != "$got" ]; then
			echo "dprof kmem bytes test [Failed: kmem:$ev records are $got bytes in" \
			     "the $f recording, $plain plain]"
			err=1
		else
			echo "kmem:$ev: $got bytes per record in the $f recording, as plain perf" \
			     "record"
		fi
	done
done
for f in mem soft; do
	if perf evlist -v -i "$tmp/$f.data" 2>/dev/null | grep "^kmem:" |
	   grep -E "sample_type: [A-Z_|]*(ADDR|DATA_SRC|WEIGHT|REGS_INTR)"; then
		echo "dprof kmem bytes test [Failed: sample bits of the access events on the" \
		     "tracepoints ($f)]"
		err=1
	fi
done
exit $err
