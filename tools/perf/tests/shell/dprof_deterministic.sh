#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: the same recording gives the same report, run after run
#
# Build a program and a library that each have a "struct worker" of their
# own layout, with more types whose rows tie or share a name, record it
# with the software sampler, and run every view of perf dprof report on
# the same perf.data several times: any output that differs from the first
# run fails.  Row order, the members shown and the "closest:" names for an
# unknown --type must not depend on hash order or on addresses, which
# change from run to run.  Each struct worker row is typed in its own DSO,
# as perf report --sort type types the same samples.

set -u

err=0
runs=5
dprof_test="dprof deterministic test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"

fail() {
	echo "${dprof_test} [Failed: $1]"
	err=1
}

dprof_user_setup dprof_det
if ! dprof_user_twins; then
	fail "build and record the test program"
	cleanup
	exit 1
fi

# view name, then its options; an unknown --type fails with the closest names
views="profile:
samples:--samples
json:--json
classify:--view=classify
workingset:--view=workingset
worker:--type=struct worker
closest:--type=struct tw"

while IFS=: read -r name opts; do
	for i in $(seq 1 ${runs}); do
		# shellcheck disable=SC2086
		perf dprof report --stdio -i "${data}" ${opts:+"${opts}"} \
			> "${dir}/${name}.${i}" 2>&1
		if [ "${i}" -gt 1 ] && ! cmp -s "${dir}/${name}.1" "${dir}/${name}.${i}"; then
			fail "${name} (${opts:-default}): run ${i} differs from run 1"
			diff "${dir}/${name}.1" "${dir}/${name}.${i}" | head -10
			break
		fi
	done
done <<< "${views}"

# the events delivered in a thread of their own (perf dprof report
# --event-thread; a file this small is read without one by default): every
# sample resolved the same, in the same order
for name in profile samples; do
	opts=
	[ "${name}" = samples ] && opts=--samples
	# shellcheck disable=SC2086
	perf dprof report --stdio --event-thread=on -i "${data}" ${opts} \
		> "${dir}/${name}.thread" 2>&1
	if ! cmp -s "${dir}/${name}.1" "${dir}/${name}.thread"; then
		fail "${name} with --event-thread=on differs"
		diff "${dir}/${name}.1" "${dir}/${name}.thread" | head -10
	fi
done

# one DWARF-typed struct worker row per DSO, with the members of that DSO's
# layout (samples typed by an operand alone, no address, are rows under it)
rows=$(grep -cE '^  struct worker +(\(no alloc event: )?DWARF' "${dir}/profile.1")
if [ "${rows}" -ne 2 ]; then
	fail "${rows} DWARF-typed struct worker rows, not one per DSO"
	grep 'struct worker' "${dir}/profile.1"
fi
if ! grep -E '^ *struct worker .*\(twins\) .*(loops|busy) ' "${dir}/profile.1" |
		grep -qvE 'current_work|sleeping|\bid\b'; then
	fail "the program's struct worker row has not the program's members"
	grep 'struct worker' "${dir}/profile.1"
fi
if ! grep -E '^ *struct worker .*\(libtwins.so\) .*(current_work|sleeping) ' \
		"${dir}/profile.1" | grep -qvE 'loops|busy'; then
	fail "the library's struct worker row has not the library's members"
	grep 'struct worker' "${dir}/profile.1"
fi
grep -q 'closest: struct tw1, struct tw2, struct tw3$' "${dir}/closest.1" ||
	fail "closest names not the nearest in name order: $(cat "${dir}/closest.1")"

# every sample typed as perf report --sort type types it
mkdir -p "${dir}/cmp"
if ! dprof_user_compare "${data}" "${dir}/cmp" > "${dir}/cmp.res"; then
	cat "${dir}/cmp.res"
	fail "compare with perf report --sort type"
else
	read -r _ typed _ agreed < <(grep '^typed ' "${dir}/cmp.res")
	if [ -z "${typed}" ] || [ "${typed}" -eq 0 ] || [ "${agreed}" -ne "${typed}" ]; then
		fail "dprof types ${agreed:-0} of the ${typed:-0} samples perf types"
		grep '^DIFF' "${dir}/cmp.res" | head -10
	fi
fi

if [ ${err} -eq 0 ]; then
	echo "dprof deterministic test [Success]"
fi
cleanup
exit ${err}
