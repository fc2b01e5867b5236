#!/bin/bash
# The demo workload: a few seconds of kernel object churn on every CPU.
#
#   workload.sh [SECONDS]        (default 4)
#
# env: CHURN  the churn binary (scripts/guest/churn.c; default $BUILD_DIR/guest/churn)
#      PERF   perf, for 'perf bench sched messaging' (default $BUILD_DIR/perf/perf;
#             skipped when missing)
# Runs, side by side:
#   churn -t SECONDS       one pinned thread per CPU: open/close, create/unlink
#                          on tmpfs, pipes, AF_UNIX socketpairs, failed lookups
#                          (in a tmpfs dir: 9p files would cost a host round trip
#                          per open, ~100x slower under TCG)
#   perf bench sched messaging, repeated until churn ends: groups of processes
#                          passing messages over AF_UNIX sockets, then pipes
set -eu
secs=${1:-4}
BUILD_DIR=${BUILD_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build}
CHURN=${CHURN:-$BUILD_DIR/guest/churn}
PERF=${PERF:-$BUILD_DIR/perf/perf}
[ -x "$CHURN" ] || { echo "workload: no churn binary at $CHURN (gcc -O2 -pthread -o \$CHURN scripts/guest/churn.c)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/churn.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$CHURN" -t "$secs" -d "$dir" &
churn=$!
n=0
if [ -x "$PERF" ]; then
	pipe=
	while kill -0 $churn 2>/dev/null; do
		"$PERF" bench sched messaging -g 1 -l 10 $pipe >/dev/null
		n=$((n + 1))
		if [ -z "$pipe" ]; then pipe=-p; else pipe=; fi
	done
fi
wait $churn
echo "workload: $n rounds of perf bench sched messaging (-g 1 -l 10, sockets/pipes)"
