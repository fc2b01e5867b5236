#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: user programs typed at least as perf report --sort type does
#
# Build small programs of known layout with -g -fno-inline (heap structs
# in a hash table, a heap array of structs with a struct on the stack, C++
# objects made with new, and one that keeps libc's allocator busy, typed
# with libc's own DWARF when installed: libc6-dbg), record each with the
# software sampler (without the allocator's uprobes: the types come from
# DWARF alone), and compare perf dprof report --samples with perf report
# --sort symoff,type on the same perf.data: every sample perf's data-type
# profiling types, dprof must type the same, or more precisely (an
# allocator object or a named variable).  The agreement rate of each
# program is printed, and per DSO.

set -u

err=0
dprof_test="dprof user types test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_user

dprof_user_need_dwarf

# program, compiler and flags, the row dprof must show, its kind, and
# record options (grow spends most of its time in the kernel: sample its
# user-space moments every 20 us)
progs="hash:gcc -O2:struct entry:DWARF-typed
array:gcc -O1:struct particle:DWARF-typed
array:gcc -O1:struct totals:stack
objects:g++ -O2:Account:DWARF-typed
grow:gcc -O1:struct malloc_chunk:DWARF-typed:-c 20000"

built=""
while IFS=: read -r prog cc type kind ropts; do
	ext=c
	[ "${prog}" = objects ] && ext=cc
	case " ${built} " in
	*" ${prog} "*) ;;
	*)
		set -- ${cc}
		if ! command -v "$1" >/dev/null; then
			echo "dprof user types test: no $1, ${prog} not tested"
			continue
		fi
		if ! ${cc} -g -fno-inline -o "${dir}/${prog}" "${src}/${prog}.${ext}" \
				2> "${dir}/cc.err"; then
			echo "dprof user types test [Failed: build ${prog}]"
			cat "${dir}/cc.err"
			err=1
			continue
		fi
		# shellcheck disable=SC2086
		if ! perf dprof record --sampler=soft --no-kmem --no-heap ${ropts} \
				-o "${dir}/${prog}.data" -- "${dir}/${prog}" 1 \
				> "${dir}/rec.out" 2>&1; then
			echo "dprof user types test [Failed: record ${prog}]"
			cat "${dir}/rec.out"
			err=1
			continue
		fi
		mkdir -p "${dir}/${prog}.cmp"
		if ! dprof_user_compare "${dir}/${prog}.data" "${dir}/${prog}.cmp" \
				> "${dir}/${prog}.res"; then
			cat "${dir}/${prog}.res"
			err=1
			continue
		fi
		read -r _ typed _ agreed < <(grep '^typed ' "${dir}/${prog}.res")
		if [ "${prog}" = grow ] && [ "${typed:-0}" -eq 0 ]; then
			echo "dprof user types test: perf typed no sample of grow (no libc" \
			     "debuginfo, e.g. libc6-dbg?): libc not tested"
			continue
		elif [ -z "${typed}" ] || [ "${typed}" -eq 0 ]; then
			echo "dprof user types test [Failed: perf typed no sample of ${prog}]"
			err=1
		elif [ -n "$(awk '/^dso / && $2 !~ /^ld-linux/ && $6 != $4' \
				"${dir}/${prog}.res")" ]; then
			echo "dprof user types test [Failed: ${prog}: dprof types ${agreed} of" \
			     "the ${typed} samples perf types]"
			grep '^DIFF' "${dir}/${prog}.res" | head -20
			err=1
		elif [ "${agreed}" -ne "${typed}" ]; then
			# The dynamic loader's start-up, a sample or two: relocations
			# written into other objects' data (*r_addr += l_addr), typed
			# Elf64_Addr by perf's operand and, once in a few runs, by the
			# address's own typedef of the same integer by dprof.
			echo "dprof user types test: ${prog}: the dynamic loader's samples" \
			     "typed otherwise: $(grep '^DIFF' "${dir}/${prog}.res" | head -3)"
		fi
		pct=$(awk -v a="${agreed}" -v t="${typed}" \
			  'BEGIN { printf "%.1f%%", t ? 100 * a / t : 0 }')
		echo "dprof user types test: ${prog}: perf typed ${typed} samples," \
		     "dprof agrees on ${agreed} (${pct})"
		awk '/^dso / {
			printf "dprof user types test: %s: in %s perf typed %d, " \
			       "dprof agrees on %d\n", prog, $2, $4, $6
		}' prog="${prog}" "${dir}/${prog}.res"
		built="${built} ${prog}"
		# Samples with no address (an lea, a compare fused with its
		# jump) are '(operand only)' rows, with no object; DWARF-typed
		# rows count objects by their address.
		perf dprof report --stdio -i "${dir}/${prog}.data" > "${dir}/${prog}.rep" 2>&1
		if ! awk '
			function objects(   i) {
				for (i = 1; i < NF; i++)
					if ($i == "n/a" && $(i + 1) == "n/a")
						return $(i + 2)
				return -1
			}
			/^# typed by the operand alone/ { want = 1 }
			/\(operand only\)/ { operand++; if (objects() != 0) bad = bad "\n" $0 }
			/\(no alloc event: DWARF\)/ { if (objects() < 1) bad = bad "\n" $0 }
			END {
				if (bad != "")
					print "rows with the wrong object count:" bad
				if (want && !operand)
					print "no (operand only) row for the operand samples"
				exit bad != "" || (want && !operand)
			}' "${dir}/${prog}.rep" > "${dir}/${prog}.rows"; then
			echo "dprof user types test [Failed: ${prog}: $(cat "${dir}/${prog}.rows")]"
			err=1
		fi
		;;
	esac
	# grow's samples that count are libc's: typed only with its DWARF
	if [ "${prog}" = grow ] &&
	   ! grep -qE '^dso libc[.-][^ ]* typed [1-9]' "${dir}/${prog}.res"; then
		echo "dprof user types test: perf typed no sample in libc (no libc debuginfo," \
		     "e.g. libc6-dbg?): libc not tested"
		continue
	fi
	# the program's hot type is a row of its kind
	if ! awk -F'\t' -v type="${type}" -v kind="${kind}" '
		!/^#/ && $7 ~ "^ *" type " *$" && $4 ~ "^" kind " *$" { found = 1 }
		END { exit !found }' "${dir}/${prog}.cmp/dprof.samples"; then
		echo "dprof user types test [Failed: ${prog}: no ${kind} samples of ${type}]"
		err=1
	fi
done <<< "${progs}"

if [ ${err} -eq 0 ]; then
	echo "dprof user types test [Success]"
fi
cleanup
exit ${err}
