#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: C++ classes' members named as structs' are
#
# cxxclass.cc touches heap objects of C++ classes at known members: a class
# nested in a class and defined outside it, with a base class (a vtable
# pointer and data members) and a struct member, a template class with an
# empty base, and a class in a nested namespace with a static data member,
# all in namespace store.  Built with gcc's default DWARF, with DWARF 4
# and, with dwz, its types moved to an alternate file; recorded with the
# software sampler, each class's row must name its members ("restarts_",
# "key_.size_", the base's as "Iterator::refs_"), never as offsets ("+0x20"),
# in --stdio's hot members, in --json and in --view=classify --type.  The
# functions are named demangled, as perf report names them (the report
# demangles the names it shows, not whole symbol tables): the site
# "store::Block::NewIterator(unsigned int)", the code "store::Block::Iter::...",
# never "_ZN5store5Block11NewIteratorEj", which --no-demangle shows.

set -u

err=0
dprof_test="dprof user C++ classes test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"
dprof_user_setup dprof_user_cxx

dprof_user_need_dwarf
command -v g++ >/dev/null || skip "no g++ to build the test program"
command -v python3 >/dev/null || skip "no python3 to read --json"

# row type, then the members --json must name among the row's (two rows
# of "struct Rep": one has Table::Rep's members, one Builder::Rep's)
rows="Iter:restarts_ key_.size_ Iterator::refs_
Ring<long int, 8>:head_ pushes_
Stats:hits_ misses_
struct Rep:offset_
struct Rep:pending_"

fail() {
	echo "${dprof_test} [Failed: $*]"
	err=1
}

# check_stdio NAME REPORT: each row's hot members, named
check_stdio() {
	local name=$1 rep=$2 type line seen=""

	while IFS=: read -r type _; do
		case "${seen}" in *":${type}:"*) continue ;; esac
		seen="${seen}:${type}:"
		line=$(grep -m1 -E "^  ${type} +heap " "${rep}")
		if [ -z "${line}" ]; then
			fail "${name}: no heap row of ${type}"
			grep -v '^#' "${rep}" | head -10
			continue
		fi
		# "Hot members" is the last column: "restarts_ 44%, num_restarts_ 12%"
		if echo "${line}" | grep -qE ' \+(0x[0-9a-f]+|0) [0-9]+%'; then
			fail "${name}: ${type}'s hot members are offsets: ${line}"
		fi
	done <<< "${rows}"
	# its vtable pointer, ~half of its samples, is its base's
	line=$(grep -m1 -E "^  Iter +heap " "${rep}")
	if ! echo "${line}" | grep -q ' Iterator::[a-z_.A-Z]* [0-9]'; then
		fail "${name}: Iter's hot members have none of its base's: ${line}"
	fi
}

# check_json NAME JSON: every member of the rows named, the expected ones there
check_json() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for line in sys.argv[2].splitlines():
	t, names = line.split(":", 1)
	names = names.split()
	rows = [r for r in d["types"] if r["type"] == t and r["kind"] == "heap"]
	if not rows:
		bad.append("no heap row of %s" % t)
		continue
	gots = [[m["name"] for m in r["members"]] for r in rows]
	for got in gots:
		offs = [n for n in got if n.startswith("+")]
		if offs:
			bad.append("%s: members by offset: %s" % (t, " ".join(offs)))
	if not [got for got in gots if not [n for n in names if n not in got]]:
		bad.append("%s: no row with %s among %s" % (t, " ".join(names),
			   "; ".join(" ".join(got) for got in gots)))
print("; ".join(bad))
sys.exit(1 if bad else 0)
' "$2" "${rows}" > "${dir}/json.res" 2>&1 || fail "$1: --json: $(cat "${dir}/json.res")"
}

# check_names NAME REPORT CLASSIFY: the functions demangled, in the site and code columns
check_names() {
	local name=$1 rep=$2 cls=$3

	if ! grep -q '^# Iter (heap store::Block::NewIterator(unsigned int) (' "${cls}"; then
		fail "${name}: Iter's site is not store::Block::NewIterator(unsigned int)"
		grep '^# Iter ' "${cls}"
	fi
	if ! grep -qE ' store::Block::Iter::[A-Za-z]+\([a-z ]*\)( const)?\+' "${cls}"; then
		fail "${name}: no code location in store::Block::Iter's methods, demangled"
		grep -A8 '^# Iter .*by code location' "${cls}"
	fi
	if grep -q '_ZN' "${rep}" "${cls}"; then
		fail "${name}: mangled names: $(grep -ho '_ZN[A-Za-z0-9_]*' "${rep}" "${cls}" |
			sort -u | head -3 | tr '\n' ' ')"
	fi
}

# by its full path: dwz then moves all of the classes to the alternate file
source="$(cd "${src}" && pwd)/cxxclass.cc"

# dwz: the types in an alternate file's partial units, as a distribution's
# debug packages have them (/usr/lib/debug/.dwz/)
for variant in "default:" "dwarf4:-gdwarf-4" "dwz:"; do
	name=${variant%%:*}
	flags=${variant#*:}
	prog="${dir}/cxxclass-${name}"
	if [ "${name}" = dwz ]; then
		if ! command -v dwz > /dev/null; then
			echo "${dprof_test}: no dwz, types in an alternate file not tested"
			continue
		fi
		# dwz keeps the build id, by which perf would find the
		# default variant's file (or an earlier run's) in its cache
		flags="-Wl,--build-id=0x$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')"
	fi
	# shellcheck disable=SC2086
	if ! g++ -O1 -g ${flags} -fno-inline -o "${prog}" "${source}" \
			2> "${dir}/cc.err"; then
		fail "build cxxclass ${flags}"
		cat "${dir}/cc.err"
		continue
	fi
	# two files share the types: dwz moves them to the alternate file
	if [ "${name}" = dwz ] && { ! cp "${prog}" "${prog}2" ||
	   ! dwz -m "${dir}/cxxclass.alt" -M "${dir}/cxxclass.alt" "${prog}" "${prog}2" \
			> "${dir}/cc.err" 2>&1 ||
	   ! readelf -S "${prog}" | grep -q gnu_debugaltlink; }; then
		fail "dwz -m cxxclass: $(cat "${dir}/cc.err")"
		continue
	fi
	data="${dir}/${name}.data"
	if ! perf dprof record --sampler=soft --no-kmem -o "${data}" -- "${prog}" 1 \
			> "${dir}/rec.out" 2>&1; then
		fail "record cxxclass ${flags}"
		cat "${dir}/rec.out"
		continue
	fi
	perf dprof report --stdio --sort=site -i "${data}" > "${dir}/${name}.rep" 2> /dev/null
	check_stdio "${name}" "${dir}/${name}.rep"
	perf dprof report --json --sort=site -i "${data}" > "${dir}/${name}.json" 2> /dev/null
	check_json "${name}" "${dir}/${name}.json"
	# the by-member table of one class, selected by its name
	perf dprof report --stdio -i "${data}" --view=classify --type=Iter \
		> "${dir}/${name}.cls" 2> /dev/null
	miss=""
	for m in restarts_ key_.size_ Iterator::refs_; do
		grep -qE "^  0x[0-9a-f]+ +${m} " "${dir}/${name}.cls" || miss="${miss} ${m}"
	done
	if [ -n "${miss}" ]; then
		fail "${name}: --view=classify --type=Iter has no member${miss}"
		grep -A8 '^# Iter .*by member' "${dir}/${name}.cls"
	fi
	check_names "${name}" "${dir}/${name}.rep" "${dir}/${name}.cls"
	# as the binary names them, when asked
	mangled='^# Iter (heap _ZN5store5Block11NewIteratorEj ('
	if [ "${name}" = default ] &&
	   ! perf dprof report --stdio -i "${data}" --view=classify --type=Iter --no-demangle \
			2> /dev/null | grep -q "${mangled}"; then
		fail "${name}: --no-demangle: Iter's site is not _ZN5store5Block11NewIteratorEj"
	fi
	echo "${dprof_test}: ${name}:" \
	     "$(grep -m1 -E '^  Iter +heap ' "${dir}/${name}.rep" | sed 's/.*  //')"
done

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
