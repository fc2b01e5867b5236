#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user-space global struct and its members
#
# Record the dprof_struct workload (a global struct with two hot members)
# with the software sampler and check that the data profile names the
# struct and those members.  The static's lookup is kept with the typings
# of perf's binary: the next report answers it from the file.

set -u

err=0
data=$(mktemp /tmp/__perf_test.dprof.data.XXXXX)
out=$(mktemp /tmp/__perf_test.dprof.out.XXXXX)
tc=$(mktemp -d /tmp/__perf_test.dprof.tc.XXXXX)

cleanup() {
	rm -f "${data}" "${data}.old" "${out}" "${out}".*
	rm -rf "${tc}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# cpu-clock with interrupt registers is all this needs
if ! perf record -o /dev/null -e cpu-clock --intr-regs=ip -- true >/dev/null 2>&1; then
	echo "dprof user static test [Skipped: cannot sample cpu-clock with interrupt registers]"
	cleanup
	exit 2
fi

if ! perf dprof record --sampler=soft --no-kmem -c 100000 -o "${data}" \
		-- perf test -w dprof_struct 1 >/dev/null 2>&1; then
	echo "dprof user static test [Failed: record]"
	cleanup
	exit 1
fi

# the sampler's event records the data mappings a static is found in
# (--data-mmap), without perf record -d's data address and source, zero
# in every cpu-clock sample: an address is there only as the record-end
# pass writes it, decoded from the registers it replaces
attr=$(perf evlist -v -i "${data}" 2>/dev/null | grep -m1 '^cpu-clock')
if ! echo "${attr}" | grep -q 'mmap_data: 1' ||
   echo "${attr}" | grep -qE 'sample_type: [A-Z_|]*DATA_SRC' ||
   { echo "${attr}" | grep -qE 'sample_type: [A-Z_|]*ADDR' &&
     echo "${attr}" | grep -qE 'sample_type: [A-Z_|]*REGS_INTR'; }; then
	echo "dprof user static test [Failed: cpu-clock not recorded with data mmaps only]"
	echo "${attr}"
	err=1
fi

# the static's row is the subject: --sort=site, whatever other places
# (an access typed by its operand alone) a run gives the type
if ! perf dprof report --stdio --sort=site -i "${data}" --type=dprof_hot > "${out}" 2>&1; then
	echo "dprof user static test [Failed: report]"
	cat "${out}"
	cleanup
	exit 1
fi

# The workload's struct must be the hottest user type, with the hot
# members named from DWARF.
row=$(grep -m1 -E '^  struct dprof_hot +static dprof_hot' "${out}")
if [ -z "${row}" ]; then
	echo "dprof user static test [Failed: no 'struct dprof_hot' row]"
	err=1
elif ! echo "${row}" | grep -q 'hits' || ! echo "${row}" | grep -q 'refcount'; then
	echo "dprof user static test [Failed: hot members hits/refcount not named]"
	err=1
fi
# drill-down: both members with their offsets
if ! grep -qE '^  0x20 +hits ' "${out}" || ! grep -qE '^  0 +refcount ' "${out}"; then
	echo "dprof user static test [Failed: --type drill-down lacks members]"
	err=1
fi
# the header accounts for every sample
if ! grep -q '^# resolved ' "${out}" || ! grep -q '^# unresolved:' "${out}"; then
	echo "dprof user static test [Failed: header]"
	err=1
fi

# The static's lookup, kept: the next report answers it as the file says
# (a library whose data alone the samples hit has its symbol table left
# unloaded), and a file whose lookup lies outside its symbol is not used.
for n in 1 2; do
	perf dprof report --stdio -v -i "${data}" --type-cache-dir="${tc}" \
		> "${out}.${n}" 2> "${out}.err${n}"
done
kept=$(sed -n 's/^dprof: \([0-9]*\) data lookups answered as an earlier report.s$/\1/p' \
	"${out}.err2")
file=$(grep -l '^s [0-9a-f]* [0-9a-f]* [0-9a-f]* dprof_hot$' "${tc}"/*.types 2>/dev/null | head -1)
if [ -z "${file}" ] || [ "${kept:-0}" -eq 0 ]; then
	echo "dprof user static test [Failed: the static's lookup not kept (${kept:-0} kept)]"
	err=1
elif ! cmp -s "${out}.1" "${out}.2"; then
	echo "dprof user static test [Failed: the report with kept lookups differs]"
	diff "${out}.1" "${out}.2" | head -5
	err=1
else
	cp "${file}" "${out}.good"
	sed 's/ dprof_hot$/ dprof_kept/' "${out}.good" > "${file}"
	perf dprof report --stdio -i "${data}" --type-cache-dir="${tc}" > "${out}.3" 2>&1
	if ! grep -qE '^  [^ ].* +static dprof_kept ' "${out}.3"; then
		echo "dprof user static test [Failed: a kept lookup renamed is not the report's]"
		err=1
	fi
	awk '$1 == "s" && $5 == "dprof_hot" { $2 = $4 } { print }' "${out}.good" > "${file}"
	perf dprof report --stdio -v -i "${data}" --type-cache-dir="${tc}" \
		> "${out}.4" 2> "${out}.err4"
	if ! cmp -s "${out}.1" "${out}.4" || ! grep -q 'does not parse' "${out}.err4"; then
		echo "dprof user static test [Failed: a lookup outside its symbol was used]"
		err=1
	fi
fi

if [ ${err} -ne 0 ]; then
	cat "${out}"
else
	echo "dprof user static test [Success]"
fi
cleanup
exit ${err}
