#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the real programs that scripts/bench-alloc.sh (and the cpython shell
# test) run: programs nobody on the team wrote, built from Debian's source
# packages with -g -O2 so that perf dprof finds their types and sites.
#
#   scripts/build-realprogs.sh
#
# Into REALPROG_DIR (default /work/realprogs), sources in REALPROG_DIR/src:
#   lua/lua        Lua 5.4 (apt-get source lua5.4), its plain makefile,
#                  plus lua/alloc.lua (a copy of scripts/realprogs/alloc.lua)
#   python/python  CPython 3.11 (apt-get source python3.11), ./configure with
#                  pymalloc, run from its build tree (a symlink), plus
#                  python/alloc.py (scripts/realprogs/alloc.py)
#   redis/         redis-server, redis-benchmark, redis-cli (apt-get source
#                  redis, MALLOC=libc); skipped when all three are there
# A program already built is not built again (the workloads are copied
# every time); what this run built is appended to REALPROG_DIR/README.
# Needs root for apt-get: it adds a deb-src entry for bookworm when apt
# has none, and installs the few build dependencies missing.
#
# env: REALPROG_DIR, JOBS (make -j, default 2)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
realdir=${REALPROG_DIR:-/work/realprogs}
src=$realdir/src
jobs=${JOBS:-2}
deps="build-essential dpkg-dev pkg-config libffi-dev zlib1g-dev"
src_list=/etc/apt/sources.list.d/bookworm-src.sources

step="start"
on_exit() {
	local rc=$?
	[ $rc = 0 ] || echo "build-realprogs: FAILED (exit $rc) at: $step" >&2
}
trap on_exit EXIT

# say STEP: name the step under way (and the one a failure is blamed on)
say() {
	step=$1
	echo "build-realprogs: $1"
}

# logged LOG CMD...: run CMD, output into LOG; on failure its tail on stderr
logged() {
	local log=$1
	shift
	"$@" > "$log" 2>&1 || {
		tail -n 25 "$log" >&2
		echo "build-realprogs: full log: $log" >&2
		return 1
	}
}

# srcdir PACKAGE: the unpacked Debian source of PACKAGE in $src, if any
srcdir() {
	local c
	for c in "$src"/*/debian/changelog; do
		[ -f "$c" ] || continue
		if [ "$(awk 'NR == 1 { print $1; exit }' "$c")" = "$1" ]; then
			echo "${c%/debian/changelog}"
			return 0
		fi
	done
	return 0
}

# srcversion DIR: the Debian version of the source unpacked in DIR
srcversion() {
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$1/debian/changelog"
}

apt_ready=0
# get_source PACKAGE: unpack PACKAGE's Debian source into $src (once)
get_source() {
	[ -n "$(srcdir "$1")" ] && return 0
	if [ $apt_ready = 0 ]; then
		say "apt: deb-src entries and build dependencies"
		[ "$(id -u)" = 0 ] || { echo "build-realprogs: apt-get needs root" >&2; exit 1; }
		export DEBIAN_FRONTEND=noninteractive
		if ! grep -rqsE '^(Types:.*deb-src|deb-src[[:space:]])' \
			/etc/apt/sources.list /etc/apt/sources.list.d/; then
			cat > "$src_list" <<-EOF
				# added by perf dprof's scripts/build-realprogs.sh
				Types: deb-src
				URIs: http://deb.debian.org/debian
				Suites: bookworm bookworm-updates
				Components: main
				Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

				Types: deb-src
				URIs: http://deb.debian.org/debian-security
				Suites: bookworm-security
				Components: main
				Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
		fi
		logged "$src/apt.log" apt-get update -q
		local p missing=
		for p in $deps; do
			dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
				missing="$missing $p"
		done
		if [ -n "$missing" ]; then
			# shellcheck disable=SC2086
			logged "$src/apt.log" apt-get install -y -q --no-install-recommends $missing
		fi
		apt_ready=1
	fi
	local log=$src/source-$1.log v
	say "source: apt-get source $1"
	if ! (cd "$src" && apt-get source -q "$1") > "$log" 2>&1; then
		# a version listed but not served (a security update's .dsc, seen
		# here): the others, newest first
		for v in $(apt-cache showsrc "$1" | sed -n 's/^Version: //p' | sort -ruV); do
			say "source: apt-get source $1=$v"
			(cd "$src" && apt-get source -q "$1=$v") >> "$log" 2>&1 && break
		done
	fi
	[ -n "$(srcdir "$1")" ] || {
		tail -n 25 "$log" >&2
		echo "build-realprogs: no source of $1 in $src, log: $log" >&2
		exit 1
	}
}

# install_copy FROM TO: copy FROM to TO unless TO is the same already
install_copy() {
	cmp -s "$1" "$2" || cp "$1" "$2"
}

notes=
# note WORDS...: one line of the README, the words joined by spaces
note() {
	notes+="$*"$'\n'
}

mkdir -p "$src" "$realdir/lua" "$realdir/python"
cc_version=$(gcc --version | head -n 1)

# Lua: the upstream makefile, whose CFLAGS are -O2 -Wall ...; -g added
if [ -x "$realdir/lua/lua" ]; then
	say "lua: $realdir/lua/lua is there, not built"
else
	get_source lua5.4
	d=$(srcdir lua5.4)
	# Debian's first patch swaps the makefiles for libtool ones: back to
	# upstream's (its other patches, CVE fixes and module paths, stay)
	if grep -q LIBTOOL "$d/src/Makefile"; then
		say "lua: reverting debian/patches/0001-build-system.patch in $d"
		logged "$src/lua-build.log" patch -R -p1 -d "$d" \
			-i "$d/debian/patches/0001-build-system.patch"
		logged "$src/lua-build.log" make -C "$d" clean
	fi
	# the header that debian/rules writes for the module paths of 0002
	h=$d/src/lua5.4-deb-multiarch.h
	if [ ! -f "$h" ]; then
		printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n' > "$h"
		printf '#define DEB_HOST_MULTIARCH "%s"\n#endif\n' "$(gcc -print-multiarch)" >> "$h"
	fi
	say "lua: make linux MYCFLAGS=-g in $d"
	logged "$src/lua-build.log" make -C "$d" -j"$jobs" linux MYCFLAGS=-g
	cp "$d/src/lua" "$realdir/lua/lua"
	note "Lua ${d##*/lua5.4-} (lua in $realdir/lua/, copied from the build tree;" \
		"alloc.lua: perf dprof's scripts/realprogs/alloc.lua)."
	note "Source: Debian source package lua5.4 $(srcversion "$d") (apt-get source lua5.4:" \
		"Debian's patches applied, but 0001-build-system (its libtool makefiles)" \
		"reverted; src/lua5.4-deb-multiarch.h written as debian/rules does)," \
		"unpacked to $d."
	note "Build: cd $d && make -j$jobs linux MYCFLAGS=-g" \
		"(upstream makefile: -O2 -g, no readline)."
	note "Compiler: $cc_version. Build log: $src/lua-build.log"
fi
say "lua: workload $realdir/lua/alloc.lua"
install_copy "$repo/scripts/realprogs/alloc.lua" "$realdir/lua/alloc.lua"

# CPython: a static interpreter in its build tree, which it runs from
# (Lib/ and the built extension modules beside it): no make install
if [ -x "$realdir/python/python" ]; then
	say "python: $realdir/python/python is there, not built"
else
	get_source python3.11
	d=$(srcdir python3.11)
	py_conf=(--with-pymalloc --without-ensurepip "CFLAGS=-g -O2" "OPT=-fwrapv -Wall")
	if [ ! -f "$d/Makefile" ]; then
		say "python: ./configure $(printf '%q ' "${py_conf[@]}")in $d"
		(cd "$d" && logged "$src/python-configure.log" ./configure "${py_conf[@]}")
	fi
	say "python: make -j$jobs in $d"
	logged "$src/python-build.log" make -C "$d" -j"$jobs"
	[ -x "$d/python" ] || { echo "build-realprogs: no $d/python" >&2; exit 1; }
	ln -sfn "$d/python" "$realdir/python/python"
	# the extension modules setup.py did not build (none is the workload's)
	py_nomods=$(awk '
		/^(The necessary bits|Failed to build|Following modules built)/ { f = 1; next }
		/^To find/ || NF == 0 { f = 0 }
		f { for (i = 1; i <= NF; i++) printf " %s", $i }' "$src/python-build.log")
	note "CPython ${d##*/python3.11-} (python in $realdir/python/: a symlink to the" \
		"build tree's interpreter, which runs from there; alloc.py: perf dprof's" \
		"scripts/realprogs/alloc.py)."
	note "Source: Debian source package python3.11 $(srcversion "$d") (apt-get source" \
		"python3.11, Debian's patches applied), unpacked to $d."
	note "Build: cd $d && ./configure $(printf '%q ' "${py_conf[@]}")&& make -j$jobs" \
		"(pymalloc on, -g -O2, no PGO or LTO, libpython static in the binary)."
	note "Compiler: $cc_version. Extension modules not built:${py_nomods:- none}." \
		"Logs: $src/python-configure.log, $src/python-build.log"
fi
say "python: workload $realdir/python/alloc.py"
install_copy "$repo/scripts/realprogs/alloc.py" "$realdir/python/alloc.py"

# redis: libc malloc (not jemalloc), so that the recorder sees its objects
r=$realdir/redis
if [ -x "$r/redis-server" ] && [ -x "$r/redis-benchmark" ] && [ -x "$r/redis-cli" ]; then
	say "redis: $r has redis-server, redis-benchmark, redis-cli, not built"
else
	get_source redis
	d=$(srcdir redis)
	redis_make=(MALLOC=libc OPTIMIZATION=-O2 CFLAGS=-g BUILD_TLS=no)
	say "redis: make -j$jobs ${redis_make[*]} in $d"
	logged "$src/redis-build.log" make -C "$d" -j"$jobs" "${redis_make[@]}"
	mkdir -p "$r"
	cp "$d/src/redis-server" "$d/src/redis-benchmark" "$d/src/redis-cli" "$r/"
	note "Redis ${d##*/redis-} (redis-server, redis-benchmark, redis-cli in $r/," \
		"copied from the build tree)."
	note "Source: Debian source package redis $(srcversion "$d") (apt-get source redis," \
		"Debian's patches applied), unpacked to $d."
	note "Build: cd $d && make -j$jobs ${redis_make[*]}"
	note "Compiler: $cc_version. Build log: $src/redis-build.log"
fi

if [ -n "$notes" ]; then
	say "readme: $realdir/README (appended)"
	{
		echo
		echo "Built by perf dprof's scripts/build-realprogs.sh, $(date -u +%Y-%m-%d):"
		printf '%s' "$notes"
	} >> "$realdir/README"
else
	say "readme: nothing built, $realdir/README left as it is"
fi
step="done"
echo "build-realprogs: done: $realdir"
