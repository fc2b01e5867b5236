#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: bad options get one clear line and a non-zero exit
#
# Each bad option of record, report and diff must fail before anything is
# recorded or reported: a non-zero exit, a "dprof:" line naming the option
# on stderr, and nothing on stdout.  --type naming no type of the
# recording must offer the closest names.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_options.XXXXX)
trap 'rm -rf "${tmp}"' EXIT

perf test -w dprof_cachemodel 2>&1 | grep -q SCENARIO || {
	echo "dprof options test [Skipped: perf has no dprof_cachemodel workload]"
	exit 2
}
data=$tmp/mixed.data
perf test -w dprof_cachemodel mixed 1 2 16384 7 ibs "$data" >/dev/null 2>&1 ||
	{ echo "dprof options test [Failed: cannot synthesize $data]"; exit 1; }

err=0
# bad WANT ARGS...: fails, says WANT in a dprof: line, prints no report
bad() {
	local want=$1 rc

	shift
	perf dprof "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc = 0 ]; then
		echo "'perf dprof $*' exited 0"
		err=1
	elif ! grep -q "^dprof: .*$want" "$tmp/err"; then
		echo "'perf dprof $*': no 'dprof: ...$want' line: $(head -3 "$tmp/err")"
		err=1
	elif [ -s "$tmp/out" ]; then
		echo "'perf dprof $*' printed a report: $(head -2 "$tmp/out")"
		err=1
	elif [ -e "$tmp/rec.data" ]; then
		echo "'perf dprof $*' recorded"
		err=1
		rm -f "$tmp/rec.data"
	fi
}

bad "--type=dm_pairs: no such type.*closest: dm_pair" report --stdio -i "$data" --type=dm_pairs
bad "--type=nothing: no such type" report --stdio -i "$data" --view=classify --type=nothing
bad "--cache=big" report --stdio -i "$data" --cache=big
bad "--cache=1M:3" report --stdio -i "$data" --view=profile --cache=1M:3
bad "unknown view 'bogus'" report --stdio -i "$data" --view=bogus
bad "-k $tmp/no-vmlinux" report --stdio -i "$data" -k "$tmp/no-vmlinux"
bad "--graph=$tmp/no/dir/ws.svg" report --stdio -i "$data" --view=workingset \
	--graph="$tmp/no/dir/ws.svg"
bad "--percent-limit" report --stdio -i "$data" --percent-limit=200
bad "--fold=lots" report --stdio -i "$data" --view=flow --type=dm_pair --fold=lots
bad "--fold=150%" report --stdio -i "$data" --fold=150%
bad "diff compares two recordings" diff "$data"
bad "--sampler=bogus" record --sampler=bogus -o "$tmp/rec.data" -- true
bad "--kmem-events=bogus: want map or objects" record --kmem-events=bogus -o "$tmp/rec.data" -- true
bad "bad --watch item 'filp:0/3'" record --watch=filp:0/3 -o "$tmp/rec.data" -- true
bad "bad --watch item ':8'" record --watch=dentry,:8 -o "$tmp/rec.data" -- true
bad "use either -c or -F" record -c 1000 -F 99 -o "$tmp/rec.data" -- true

if [ $err = 0 ]; then
	echo "dprof options test [Success]"
else
	echo "dprof options test [Failed]"
fi
exit $err
