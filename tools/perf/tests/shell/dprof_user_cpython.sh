#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: CPython's objects, from its own allocator, with their sites
#
# CPython allocates its objects with pymalloc (PyObject_Malloc), which the
# preloaded recorder does not see through malloc: it wraps CPython's MEM
# and OBJ allocator domains instead.  CPython 3.11 built with -g from its
# source (REALPROG_DIR, default /work/realprogs: see its README; skipped
# when absent) runs a dict/list/str churn (python/alloc.py).  A quarter of
# the samples at least must fall in tracked heap objects (9.1% before the
# recorder wrapped the domains); dict, keys, str and list objects must
# have rows at their allocation sites (in dictobject.c, unicodeobject.c,
# listobject.c, or rows of their types at heap sites); no Py* type among
# the first 10 rows may be typed by DWARF alone, with no object.

set -u

err=0
dprof_test="dprof user cpython test"
# shellcheck source=lib/dprof_user.sh
. "$(dirname "$0")/lib/dprof_user.sh"

realdir=${REALPROG_DIR:-/work/realprogs}
python=${realdir}/python/python
script=${realdir}/python/alloc.py
if [ ! -x "${python}" ] || [ ! -f "${script}" ]; then
	echo "${dprof_test} [Skipped: no ${python} and ${script} (${realdir}/README)]"
	exit 2
fi
dprof_user_setup dprof_cpython
dprof_user_need_dwarf

if ! perf dprof record --sampler=soft --no-kmem -o "${dir}/py.data" -- \
		"${python}" "${script}" 60 > "${dir}/record.out" 2>&1; then
	echo "${dprof_test} [Failed: record]"
	cat "${dir}/record.out"
	exit 1
fi
perf dprof report --stdio -i "${dir}/py.data" > "${dir}/py.rep" 2>&1

share=$(sed -nE 's/^# user heap objects: ([0-9.]+)% of samples.*/\1/p' "${dir}/py.rep")
if [ -z "${share}" ] || awk -v s="${share}" 'BEGIN { exit !(s < 25) }'; then
	echo "${dprof_test} [Failed: ${share:-no}% of the samples in tracked heap objects," \
	     "not 25% at least]"
	grep -E '^# (user heap|resolved)' "${dir}/py.rep"
	err=1
fi

# a row of the type, or one at a site in the type's file (the site past
# the wrappers may be the type's constructor or what it inlined: in one
# run in four the dicts' row is at dict_new_presized, where new_dict is
# inlined, as the chains sampled decide)
name='[A-Za-z_]+[.a-z0-9]*'
dict='(PyDict_New|new_dict|dict_new|dict_new_presized|_PyDict_NewPresized)[.a-z0-9]*'
for what in "dict:PyDictObject:${dict} \(dictobject" \
	    "keys:PyDictKeysObject:${name} \(dictobject" \
	    "str:(PyASCIIObject|PyCompactUnicodeObject|PyUnicodeObject):${name} \(unicodeobject" \
	    "list:PyListObject:${name} \(listobject"; do
	kind=${what%%:*}
	type=${what#*:}
	site=${type#*:}
	type=${type%%:*}
	if ! grep -qE "^  ${type} +heap |heap ${site}\.c:[0-9]+\)" "${dir}/py.rep"; then
		echo "${dprof_test} [Failed: no row of ${kind} objects with their site]"
		err=1
	fi
done

# the first 10 rows (a type's sites are indented under it)
sed -n '/^# Type/,$p' "${dir}/py.rep" | grep -E '^  [^ ]' | head -10 > "${dir}/top10"
if grep -E '^  _?Py[A-Za-z_]* +(\(no alloc event: DWARF\)|DWARF )' "${dir}/top10"; then
	echo "${dprof_test} [Failed: a Py* type typed by DWARF alone in the first 10 rows]"
	cat "${dir}/top10"
	err=1
fi

if [ ${err} -eq 0 ]; then
	echo "${dprof_test} [Success]"
fi
cleanup
exit ${err}
