#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: the man page documents every option, renders without warnings
#
# For each subcommand with options (record, report, diff), the long options
# 'perf dprof <sub> -h' lists must be exactly the ones its '<SUB> OPTIONS'
# section of perf-dprof.txt (plus COMMON OPTIONS, if any) documents.  When
# asciidoc is installed, the page must also render without a warning.

set -eu

doc=$(dirname "$0")/../../Documentation/perf-dprof.txt
[ -f "$doc" ] || { echo "dprof_doc: skip: no $doc"; exit 2; }
perf dprof -h 2>&1 | grep -q 'Usage: perf dprof' ||
	{ echo "dprof_doc: skip: perf has no dprof command"; exit 2; }

# The items ("--name::" or "--name=::") of section $1 of the page.
doc_options() {
	awk -v want="$1" '
		/^[-=]+$/ && prev != "" { sec = prev }	# a heading underline
		{ prev = $0 }
		sec == want || sec == "COMMON OPTIONS" {
			if (match($0, /^--[a-z0-9-]+=?::$/))
				print substr($0, 3, RLENGTH - 2)
		}' "$doc" | sed 's/=\?::$//' | sort -u
}

# The long options of 'perf dprof $1 -h'.
help_options() {
	perf dprof "$1" -h 2>&1 |
		sed -nE 's/^ +(-[a-zA-Z0-9], )?--([a-z0-9-]+).*/\2/p' | sort -u
}

err=0
for sub in record report diff; do
	help=$(help_options "$sub")
	if [ -z "$help" ]; then
		echo "dprof_doc: perf dprof $sub: no options listed (no such subcommand?)"
		continue
	fi
	sec="$(echo "$sub" | tr a-z A-Z) OPTIONS"
	documented=$(doc_options "$sec")
	if [ -z "$documented" ]; then
		echo "dprof_doc: FAIL: perf-dprof.txt has no '$sec' section" >&2
		err=1
		continue
	fi
	undocumented=$(comm -23 <(echo "$help") <(echo "$documented"))
	stale=$(comm -13 <(echo "$help") <(echo "$documented"))
	if [ -n "$undocumented" ]; then
		echo "dprof_doc: FAIL: $sec lacks:" $undocumented >&2
		err=1
	fi
	if [ -n "$stale" ]; then
		echo "dprof_doc: FAIL: $sec documents what 'perf dprof $sub' lacks:" $stale >&2
		err=1
	fi
	[ -n "$undocumented$stale" ] ||
		echo "dprof_doc: $sec: $(echo "$help" | wc -l) options, all documented"
done

# Debian's asciidoc runs the python3 first in PATH: put the system's first.
conf=$(dirname "$doc")/asciidoc.conf
if ! PATH=/usr/bin:$PATH command -v asciidoc >/dev/null; then
	echo "dprof_doc: asciidoc not installed: rendering not checked (make doc does)"
elif [ ! -f "$conf" ]; then
	echo "dprof_doc: no $conf (not in a kernel tree): rendering not checked"
else
	if ! out=$(PATH=/usr/bin:$PATH asciidoc -b docbook -d manpage \
		   -f "$conf" -aperf_version=test \
		   -amansource=perf -amanmanual="perf Manual" -o /dev/null "$doc" 2>&1) ||
	   [ -n "$out" ]; then
		echo "$out" >&2
		echo "dprof_doc: FAIL: asciidoc warns about perf-dprof.txt" >&2
		err=1
	else
		echo "dprof_doc: asciidoc renders perf-dprof.txt without a warning"
	fi
fi
exit $err
