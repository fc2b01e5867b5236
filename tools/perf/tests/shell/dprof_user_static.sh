#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user-space global struct and its members
#
# Record the dprof_struct workload (a global struct with two hot members)
# with the software sampler and check that the data profile names the
# struct and those members.

set -u

err=0
data=$(mktemp /tmp/__perf_test.dprof.data.XXXXX)
out=$(mktemp /tmp/__perf_test.dprof.out.XXXXX)

cleanup() {
	rm -f "${data}" "${data}.old" "${out}"
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
# in every cpu-clock sample
attr=$(perf evlist -v -i "${data}" 2>/dev/null | grep -m1 '^cpu-clock')
if ! echo "${attr}" | grep -q 'mmap_data: 1' ||
   echo "${attr}" | grep -qE 'sample_type: [A-Z_|]*(ADDR|DATA_SRC)'; then
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

if [ ${err} -ne 0 ]; then
	cat "${out}"
else
	echo "dprof user static test [Success]"
fi
cleanup
exit ${err}
