#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf dprof: TUI browser views driven under tmux
#
# Record the dprof_struct workload (a global struct dprof_hot with two hot
# members), open 'perf dprof report' in a tmux pane of a fixed size, and
# drive it with keys: the data profile, ENTER for the members, c, w and f
# for the miss classification, working set and data flow of the type, a
# search, the help window, and q back out and exit.  Also check that
# without a terminal report prints the stdio profile.

set -u

tmp=$(mktemp -d /tmp/__perf_test.dprof_tui.XXXXX)
# A private tmux server per report (no other session is touched; a new
# name each time, since kill-server returns before the old one is gone).
nr_starts=0
sock="dprof_tui_$$_0"
pane="dprof:0"

cleanup() {
	local n

	for n in $(seq 0 ${nr_starts}); do
		tmux -L "dprof_tui_$$_${n}" kill-server >/dev/null 2>&1
	done
	rm -rf "${tmp}"
	trap - EXIT TERM INT
}
trap 'cleanup; exit 1' TERM INT
trap cleanup EXIT

if ! command -v tmux >/dev/null 2>&1; then
	echo "dprof TUI test [Skipped: tmux not installed]"
	exit 2
fi
if ! perf version --build-options | grep -Eq 'libslang: +\[ on'; then
	echo "dprof TUI test [Skipped: perf built without slang]"
	exit 2
fi
if ! perf record -o /dev/null -e cpu-clock --intr-regs=ip -- true >/dev/null 2>&1; then
	echo "dprof TUI test [Skipped: cannot sample cpu-clock with interrupt registers]"
	exit 2
fi

data="${tmp}/perf.data"
if ! perf dprof record --sampler=soft --no-kmem -c 100000 -o "${data}" \
		-- perf test -w dprof_struct 1 >/dev/null 2>&1; then
	echo "dprof TUI test [Failed: record]"
	exit 1
fi

# Not a terminal: the stdio profile.  The static's row is the subject, in
# these views as in the browser's: --sort=site, whatever other places (an
# access typed by its operand alone) a run gives the type.
perf dprof report --sort=site -i "${data}" > "${tmp}/stdio" 2>&1
if ! grep -q '^# perf dprof report: data profile' "${tmp}/stdio" ||
   ! grep -qE '^  struct dprof_hot +static dprof_hot' "${tmp}/stdio"; then
	echo "dprof TUI test [Failed: report without a terminal is not the stdio profile]"
	cat "${tmp}/stdio"
	exit 1
fi

err=0
screen="${tmp}/screen"

# Wait up to 30 s (a loaded machine) until every pattern (grep -E) is on the screen.
expect() {
	local what=$1 i p ok
	shift
	for i in $(seq 150); do
		tmux -L "${sock}" capture-pane -p -t "${pane}" > "${screen}" 2>/dev/null
		ok=1
		for p in "$@"; do
			grep -qE -- "$p" "${screen}" || { ok=0; break; }
		done
		[ $ok = 1 ] && return 0
		sleep 0.2
	done
	echo "dprof TUI test [Failed: ${what}: no '${p}' on the screen]"
	cat "${screen}"
	err=1
	return 1
}

keys() {
	tmux -L "${sock}" send-keys -t "${pane}" "$@"
}

# Start a report in a new 220x40 pane (the Hot members column starts past
# column 150 when a row has a long type name); its exit status lands in
# ${tmp}/rc.
start() {
	tmux -L "${sock}" kill-server >/dev/null 2>&1
	nr_starts=$((nr_starts + 1))
	sock="dprof_tui_$$_${nr_starts}"
	rm -f "${tmp}/rc"
	tmux -L "${sock}" new-session -d -s dprof -x 220 -y 40 \
		"TERM=xterm perf dprof report -i '${data}' $*; echo \$? > '${tmp}/rc'; sleep 60"
}

# Wait for the report to exit with status 0.
expect_exit() {
	local i

	for i in $(seq 150); do
		[ -s "${tmp}/rc" ] && break
		sleep 0.2
	done
	if [ "$(cat "${tmp}/rc" 2>/dev/null)" != 0 ]; then
		echo "dprof TUI test [Failed: $1: q did not exit perf with status 0]"
		tmux -L "${sock}" capture-pane -p -t "${pane}"
		err=1
	fi
}

start --sort=site
expect "profile" '^Data profile: .*perf\.data' '^# Type +Cache / kind +Samples' \
	'^  struct dprof_hot +static dprof_hot' 'hits [0-9]+%'
keys Enter
expect "ENTER: members" '^Members: struct dprof_hot' \
	'^  0x20 +hits +[0-9.]+%' 'dprof_struct\+0x'
keys c
expect "c: miss classification" '^Miss classification: struct dprof_hot' \
	'miss classification \(DProf paper 3\.3\)' '^  struct dprof_hot +static dprof_hot'
keys w
expect "w: working set" '^Working set: struct dprof_hot' \
	'working set \(DProf paper 3\.2\)' 'distinct lines per associativity set'
# the bar of the variable's set may be below the screen: search for it
keys / '|#' Enter
expect "w: the set histogram's bar" 'sets +[0-9]+-[0-9]+ +\|#+ +[1-9]'
keys f
expect "f: data flow" '^Data flow: struct dprof_hot' \
	'data flow of struct dprof_hot' '==cpu==> the object was on another CPU'
keys q
expect "q: back to the profile" '^Data profile: ' '^  struct dprof_hot'
# search: move off the row, find it again by name, drill in
keys Down
keys / dprof_hot Enter
keys Enter
expect "/ search" '^Members: struct dprof_hot'
keys Escape
expect "ESC: back to the profile" '^Data profile: '
keys '?'
expect "? help" 'ENTER/m +The type by member' 'q/ESC/CTRL\+C +Exit'
keys q
expect "help closed" '^Data profile: '
keys q
expect_exit "profile"

# --tui --type --view: that view of that type first, q back, q exit
start --tui --type=dprof_hot --view=workingset
expect "--view=workingset --type" '^Working set: struct dprof_hot'
keys q
expect "q from --view" '^Data profile: '
keys q
expect_exit "--view=workingset"

# The lifetimes the report could not be sure of: the title shows the
# counters of the --stdio header's "# lifetimes:" line (a recording with
# the kmem tracepoints; skipped without them).  Per task: on every CPU a
# machine busy with other work can fill the buffers, and a report of a
# recording that lost events opens with a warning to dismiss first.
data="${tmp}/kmem.data"
if perf dprof record --sampler=soft --kmem-per-task -c 100000 -o "${data}" \
		-- perf test -w dprof_struct 1 >/dev/null 2>&1 &&
   perf dprof report --stdio -i "${data}" > "${tmp}/kmem.stdio" 2>/dev/null &&
   life=$(grep -m1 '^# lifetimes:' "${tmp}/kmem.stdio"); then
	earlier=$(echo "$life" |
		  sed -n 's/^# lifetimes: \([0-9]*\) frees of objects allocated.*/\1/p')
	unknown=$(echo "$life" | sed -n 's/.* \([0-9]*\) frees of unknown objects.*/\1/p')
	over=$(echo "$life" | sed -n 's/.* \([0-9]*\) allocations over a live object.*/\1/p')
	start
	want="^Data profile: .*kmem\\.data, [0-9]+ types; lifetimes: ${unknown:-x} unknown frees,"
	want+=" ${over:-x} allocs over a live object, ${earlier:-x} frees of earlier objects"
	expect "title: lifetimes" "$want"
	keys q
	expect_exit "lifetimes in the title"
else
	echo "dprof TUI test: no kmem recording here, title counters not checked"
fi

if [ ${err} -eq 0 ]; then
	echo "dprof TUI test [Success]"
fi
exit ${err}
