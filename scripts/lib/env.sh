# shellcheck shell=bash
# Sourced by the scripts in scripts/: where things are.
#
#   REPO         this repository (not exported)
#   BUILD_DIR    build directory (default $REPO/build), exported
#   DPROF_CACHE  what survives 'make clean': the unpacked pristine tree and
#                ccache (default ${XDG_CACHE_HOME:-$HOME/.cache}/perf-dprof),
#                exported
#
# Exported so that the scripts one script runs agree with it.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$REPO/build}
export DPROF_CACHE=${DPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-dprof}
