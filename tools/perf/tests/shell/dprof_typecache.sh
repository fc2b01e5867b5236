#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: operand typings kept between reports give the same report
#
# Record a program and a library with DWARF (the twins of the deterministic
# test) with the software sampler and report it into an empty
# --type-cache-dir: the report writes two files per binary, named by its
# build id: its typings and its DWARF index's lookups.  The next report
# reads them and makes no typing and no index of its own (perf
# disassembles nothing, its rows' types are found as kept, even with a
# struct that has no name), with the same output, as --no-type-cache (which
# writes nothing).  A typing or a lookup changed in a file changes the
# report: it is what the report used.  A file made by another perf, or
# damaged, is ignored and replaced.  The layouts of the rows' types are
# kept too: the report after reads no DWARF, names members as the file
# says, and ignores a file that names types it does not describe.  A
# binary without DWARF is not searched again.  The source lines of heap
# allocation sites are kept too, and are what the next report names the
# sites with.  A recording cut short keeps no typings.

set -u

err=0
dprof_test="dprof typecache test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"

fail() {
	echo "${dprof_test} [Failed: $1]"
	err=1
}

dprof_user_setup dprof_tc
if ! dprof_user_twins; then
	fail "build and record the test program"
	cleanup
	exit 1
fi

tc="${dir}/tc"
# report NAME [options]: the --samples listing in NAME, -v in NAME.err
report() {
	local name=$1

	shift
	perf dprof report --stdio --samples -v -i "${data}" "$@" \
		> "${dir}/${name}" 2> "${dir}/${name}.err"
}

# the build id's file, and its typings ("i" lines) and types ("t" lines)
bid=$(readelf -n "${dir}/twins" 2>/dev/null | sed -n 's/.*Build ID: *//p')
file="${tc}/${bid}.types"
[ -n "${bid}" ] || skip "gcc made the program without a build id"

report cold --type-cache-dir="${tc}"
if ! [ -s "${file}" ] || ! grep -q '^i ' "${file}" || ! grep -q '^t ' "${file}"; then
	fail "the first report kept no typings of the program in ${file}"
	ls -l "${tc}" 2>&1
fi
if ! grep -q '^s ' "${tc}/${bid}.index" || ! grep -q '^e ' "${tc}/${bid}.index"; then
	fail "the first report kept no lookups of the program's DWARF"
	cat "${tc}/${bid}.index" 2>&1 | head -5
fi
libbid=$(readelf -n "${dir}/libtwins.so" 2>/dev/null | sed -n 's/.*Build ID: *//p')
[ -s "${tc}/${libbid}.types" ] || fail "no typings of the library kept"
perf_bid=$(readelf -n "$(command -v perf)" 2>/dev/null | sed -n 's/.*Build ID: *//p')
if [ -n "${perf_bid}" ] && ! head -1 "${file}" | grep -qx "perf-dprof-types 1 ${perf_bid}"; then
	fail "the file does not name this perf: $(head -1 "${file}")"
fi
grep -q 'found made by an earlier report' "${dir}/cold.err" &&
	! grep -q '^dprof: 0 typings and 0 code reads found' "${dir}/cold.err" &&
	fail "a first report into an empty directory found typings"

report warm --type-cache-dir="${tc}"
if ! cmp -s "${dir}/cold" "${dir}/warm"; then
	fail "the report with the kept typings differs"
	diff "${dir}/cold" "${dir}/warm" | head -10
fi
kept=$(sed -n \
	's/^dprof: \([0-9]*\) typings and [0-9]* code reads found made by an earlier report/\1/p' \
	"${dir}/warm.err")
if [ "${kept:-0}" -eq 0 ] || grep -q 'symbol__disassemble' "${dir}/warm.err"; then
	fail "the second report typed again (${kept:-0} typings kept)"
fi
if grep -q 'twins.*: indexed' "${dir}/warm.err" ||
   ! grep -q "twins: [0-9]* lookups from" "${dir}/warm.err"; then
	fail "the second report indexed the DWARF of the program or library again"
	grep 'twins.*index' "${dir}/warm.err"
fi

# the profile's rows, twice: the second finds every type it names among
# the lookups the first kept, and the struct without a name (no name to
# look it up by, nor to keep) makes no index either
for n in 1 2; do
	perf dprof report --stdio -v -i "${data}" --type-cache-dir="${tc}" \
		> "${dir}/rows${n}" 2> "${dir}/rows${n}.err"
done
grep -Eq '^  struct +\(no alloc event: DWARF\) \(twins\)' "${dir}/rows2" ||
	fail "no row of the struct without a name"
if grep -q 'twins.*: indexed' "${dir}/rows2.err"; then
	fail "the rows of a report of kept lookups indexed the DWARF again"
	grep 'twins.*index' "${dir}/rows2.err"
fi

# the layouts of the types the rows showed: the next report names their
# members without opening the program's DWARF at all
layout="${tc}/${bid}.layout"
if ! grep -q '^t ' "${layout}" 2>/dev/null || ! grep -q '^m ' "${layout}"; then
	fail "the first report kept no type layouts of the program"
fi
grep -q "type layouts from ${layout}" "${dir}/rows2.err" ||
	fail "the second report did not read the program's type layouts"
if grep -q 'twins.*DWARF opened' "${dir}/rows2.err"; then
	fail "the second report opened the DWARF its kept layouts describe"
	grep 'DWARF opened' "${dir}/rows2.err"
fi
cmp -s "${dir}/rows1" "${dir}/rows2" || fail "the rows from the kept layouts differ"
# their members renamed in the file: the report names them so
cp "${layout}" "${dir}/good.layout"
awk '$1 == "m" && $6 > 0 { n++; $7 = "zz" n; $6 = length($7) } { print }' \
	"${dir}/good.layout" > "${layout}"
perf dprof report --stdio -i "${data}" --type-cache-dir="${tc}" > "${dir}/rows3" 2>&1
grep -q ' zz[0-9]* [0-9]*%' "${dir}/rows3" ||
	fail "members renamed in the kept layouts are not the report's: the file is not read"
# a layout naming a type it does not describe, then garbage: not used,
# the DWARF answers, and the file is written anew
awk '$1 == "m" && !done { $5 = "fffffff0"; done = 1 } { print }' "${dir}/good.layout" > \
	"${layout}"
perf dprof report --stdio -v -i "${data}" --type-cache-dir="${tc}" > "${dir}/rows4" \
	2> "${dir}/rows4.err"
cmp -s "${dir}/rows1" "${dir}/rows4" || fail "a layout naming an unknown type was used"
grep -q 'names types it does not describe' "${dir}/rows4.err" ||
	fail "no word on layouts naming unknown types"
head -c 4096 /dev/urandom > "${layout}"
perf dprof report --stdio -v -i "${data}" --type-cache-dir="${tc}" > "${dir}/rows5" \
	2> "${dir}/rows5.err"
cmp -s "${dir}/rows1" "${dir}/rows5" || fail "garbage layouts changed the report"
grep -q '^t ' "${layout}" || fail "garbage layouts were not written anew"

# a binary without DWARF: the next report does not search for it again
if gcc -O1 -o "${dir}/nodw" "${src}/twins.c" -L"${dir}" -ltwins -Wl,-rpath,"${dir}" \
		2> "${dir}/cc.err" &&
   perf dprof record --sampler=soft --no-kmem --no-heap -o "${dir}/nodw.data" \
		-- "${dir}/nodw" 0.5 > "${dir}/rec.out" 2>&1; then
	nbid=$(readelf -n "${dir}/nodw" 2>/dev/null | sed -n 's/.*Build ID: *//p')
	for n in 1 2; do
		perf dprof report --stdio -v -i "${dir}/nodw.data" --type-cache-dir="${tc}" \
			> "${dir}/nodw${n}" 2> "${dir}/nodw${n}.err"
	done
	[ -f "${tc}/${nbid}.nodwarf" ] || fail "no word kept on the program without DWARF"
	grep -q "no DWARF in ${dir}/nodw, as an earlier report found" "${dir}/nodw2.err" ||
		fail "the second report searched the program without DWARF again"
	cmp -s "${dir}/nodw1" "${dir}/nodw2" ||
		fail "the report of a program without DWARF changed with the kept word"
else
	fail "build and record the program without DWARF"
	cat "${dir}/cc.err" "${dir}/rec.out"
fi
cp "${dir}/good.layout" "${layout}"

before=$(stat -c %Y.%s "${file}")
report off --type-cache-dir="${tc}" --no-type-cache
cmp -s "${dir}/cold" "${dir}/off" || fail "--no-type-cache gives another report"
grep -q 'found made by an earlier report' "${dir}/off.err" &&
	fail "--no-type-cache read the kept typings"
[ "$(stat -c %Y.%s "${file}")" = "${before}" ] || fail "--no-type-cache wrote the file"

# every typing in the program's file named as the next of its types: the
# report shows what the file says
cp "${file}" "${dir}/good.types"
types=$(grep -c '^t ' "${file}")
[ "${types}" -ge 2 ] || fail "only ${types} type kept for the program"
awk -v n="${types}" '$1 == "i" { $3 = ($3 + 1) % n } { print }' "${dir}/good.types" > "${file}"
report changed --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/changed" &&
	fail "a changed typing in the file did not change the report: the file is not read"

cp "${dir}/good.types" "${file}"

# the program's type lookups all made to find nothing: the rows have no
# members to name
cp "${tc}/${bid}.index" "${dir}/good.index"
grep -v '^e ' "${dir}/good.index" > "${tc}/${bid}.index"
report nolookup --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/nolookup" &&
	fail "lookups changed in the file did not change the report: the file is not read"

# every definition kept made the first one's: they name other types, which
# the report finds out as it reads them, and answers by the index instead
awk '$1 == "e" { if (!off) off = $2; $2 = off } { print }' "${dir}/good.index" > \
	"${tc}/${bid}.index"
report mismatch --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/mismatch" || fail "lookups that name other types were used"
grep -q 'do not match its DWARF' "${dir}/mismatch.err" ||
	fail "no word on lookups that do not match the DWARF"
cp "${dir}/good.index" "${tc}/${bid}.index"

# made by another perf: ignored and replaced
sed '1s/ [0-9a-f]*$/ 0000/' "${dir}/good.types" > "${file}"
report other --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/other" || fail "a file of another perf was used"
grep -q 'made by another perf' "${dir}/other.err" || fail "no word on another perf's file"
head -1 "${file}" | grep -q ' 0000$' && fail "another perf's file was not replaced"

# damaged: cut in the middle of a line, then garbage.  Not after a newline:
# a file cut between two lines is a shorter one that parses (1 run in 40
# cut there, and no word on it was said)
cut=$(( $(stat -c %s "${dir}/good.types") / 2 ))
while [ "$(tail -c +"${cut}" "${dir}/good.types" | head -c 1 | od -An -c | tr -d ' ')" = '\n' ]; do
	cut=$((cut + 1))
done
head -c "${cut}" "${dir}/good.types" > "${file}"
report cut --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/cut" || fail "a cut file changed the report"
grep -q 'does not parse' "${dir}/cut.err" || fail "no word on a cut file"
head -c 4096 /dev/urandom > "${file}"
head -c 4096 /dev/urandom > "${tc}/${bid}.index"
report garbage --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/garbage" || fail "a garbage file changed the report"
report again --type-cache-dir="${tc}"
cmp -s "${dir}/cold" "${dir}/again" || fail "the file written after garbage differs"
grep -q '^dprof: 0 typings and [0-9]* code reads found' "${dir}/again.err" &&
	fail "the file that replaced the garbage has no typings"
grep -q '^e ' "${tc}/${bid}.index" || fail "the lookups' garbage was not replaced"

# the source lines of a program's heap sites, kept: the next report names
# the sites from the file (one renamed there is the report's), without
# reading the DWARF lines
if gcc -g -O1 -fno-inline -pthread -o "${dir}/heap" "${src}/heap.c" 2> "${dir}/cc.err" &&
   perf dprof record --sampler=soft --no-kmem -o "${dir}/heap.data" \
		-- "${dir}/heap" count 50 1 > "${dir}/heap.out" 2>&1; then
	hbid=$(readelf -n "${dir}/heap" 2>/dev/null | sed -n 's/.*Build ID: *//p')
	hfile="${tc}/${hbid}.types"
	for n in 1 2 3; do
		[ "${n}" = 3 ] &&
			sed -E '/^l /s/heap\.c:/kept.c:/' "${dir}/heap2.types" > "${hfile}"
		perf dprof report --stdio --sort=site -i "${dir}/heap.data" \
			--type-cache-dir="${tc}" > "${dir}/heap${n}" 2>&1
		[ "${n}" = 1 ] && cp "${hfile}" "${dir}/heap2.types" 2> /dev/null
	done
	if ! grep -qE '^  .* heap [a-z_]+ \(heap\.c:[0-9]+\)' "${dir}/heap1"; then
		fail "no heap site named with its source line"
		head -30 "${dir}/heap1"
	elif ! grep -qE '^l [0-9a-f]+ 1 [0-9]+ .*heap\.c:[0-9]+$' "${dir}/heap2.types"; then
		fail "no source line of a heap site kept"
	elif ! cmp -s "${dir}/heap1" "${dir}/heap2"; then
		fail "the report with the kept source lines differs"
		diff "${dir}/heap1" "${dir}/heap2" | head -5
	elif ! grep -qE '^  .* heap [a-z_]+ \(kept\.c:[0-9]+\)' "${dir}/heap3" ||
	     grep -qE ' heap [a-z_]+ \(heap\.c:' "${dir}/heap3"; then
		fail "source lines renamed in the kept file are not the report's: not read"
	fi
else
	fail "build and record the heap program"
	cat "${dir}/cc.err" "${dir}/heap.out"
fi

# a recording cut short keeps no typings: a record perf could not read can
# have moved the maps the typing of a global variable goes by
head -c $(( $(stat -c %s "${data}") * 7 / 10 )) "${data}" > "${dir}/cut.data"
perf dprof report --stdio -i "${dir}/cut.data" --type-cache-dir="${dir}/tccut" \
	> /dev/null 2>&1
ls "${dir}/tccut/"*.types > /dev/null 2>&1 && fail "a cut recording's typings were kept"

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
