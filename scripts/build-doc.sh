#!/bin/bash
# make doc: build the perf-dprof(1) man page with perf's own Documentation
# Makefile (asciidoc + xmlto) into $BUILD_DIR/doc, fail on any asciidoc or
# xmlto warning, and install it as $BUILD_DIR/man/man1/perf-dprof.1, so that
#
#   MANPATH=$BUILD_DIR/man: perf help dprof      (or: man -l <page>)
#
# works with the perf we build (perf help adds its own mandir, $HOME/share/man,
# in front of MANPATH: with DOC_INSTALL=1 the page is copied there too).
#
# env: BUILD_DIR, DPROF_CACHE, LINUX_SRC (see prepare-tree.sh), DOC_INSTALL
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"

die() { echo "build-doc: $*" >&2; exit 1; }

"$REPO/scripts/deps.sh" asciidoc xmlto docbook-xsl ||
	die "perf's doc build needs asciidoc, xmlto and docbook-xsl"
"$REPO/scripts/prepare-tree.sh" >/dev/null

# Debian's asciidoc runs the python3 first in PATH, which must be the one
# its module is installed for.
export PATH=/usr/bin:$PATH
out=$BUILD_DIR/doc
mkdir -p "$out"
rm -f "$out/perf-dprof.xml" "$out/perf-dprof.1"
# PERF-VERSION-GEN asks git about the (git-less) overlay: drop that line.
make -C "$BUILD_DIR/linux/tools/perf/Documentation" O="$out" "$out/perf-dprof.1" \
	>"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; die "make failed"; }
if grep -v 'fatal: not a git repository' "$out/build.log" |
   grep -Ei 'warning|error|failed'; then
	die "perf-dprof.txt does not render cleanly (above; log: $out/build.log)"
fi
install -D -m 644 "$out/perf-dprof.1" "$BUILD_DIR/man/man1/perf-dprof.1"
if [ "${DOC_INSTALL:-0}" = 1 ]; then
	install -D -m 644 "$out/perf-dprof.1" "$HOME/share/man/man1/perf-dprof.1"
	echo "build-doc: $HOME/share/man/man1/perf-dprof.1"
fi
echo "build-doc: $BUILD_DIR/man/man1/perf-dprof.1 (MANPATH=$BUILD_DIR/man: perf help dprof)"
