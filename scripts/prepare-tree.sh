#!/bin/bash
# Prepare the overlay tree $BUILD_DIR/linux: a hard-link copy of a pristine
# 6.12 tree with our tools/ files symlinked in and our patches applied.
#
# env: BUILD_DIR   (default <repo>/build)
#      DPROF_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/perf-dprof)
#      LINUX_SRC   (optional pristine kernel tree; default: Debian's
#                   linux-source-6.12, unpacked once into $DPROF_CACHE)
set -eu

# shellcheck source=lib/env.sh
. "$(dirname "$0")/lib/env.sh"
TARBALL=/usr/src/linux-source-6.12.tar.xz
tree=$BUILD_DIR/linux

die() { echo "prepare-tree: $*" >&2; exit 1; }

# 1. The pristine tree.
if [ -n "${LINUX_SRC:-}" ]; then
	src=$(cd "$LINUX_SRC" 2>/dev/null && pwd) ||
		die "LINUX_SRC=$LINUX_SRC is not a directory"
else
	src=$DPROF_CACHE/linux-source-6.12
	if [ ! -d "$src" ]; then
		[ -f "$TARBALL" ] || "$REPO/scripts/deps.sh" linux-source-6.12 ||
			die "$TARBALL missing: apt-get install linux-source-6.12, or set LINUX_SRC"
		echo "prepare-tree: unpacking $TARBALL into $src"
		mkdir -p "$DPROF_CACHE"
		tmp=$(mktemp -d "$DPROF_CACHE/.unpack.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		tar -xJf "$TARBALL" -C "$tmp"
		mv -T "$tmp/linux-source-6.12" "$src" 2>/dev/null || [ -d "$src" ]	# lost a race: fine
	fi
fi
[ -f "$src/tools/perf/Makefile.perf" ] || die "$src is not a kernel tree (no tools/perf/Makefile.perf)"

patches=$(ls "$REPO"/patches/perf/*.patch "$REPO"/kernel-patches/*.patch 2>/dev/null || true)
patched_files() {	# files a patch creates or modifies
	sed -n 's|^+++ b/||p' "$@" | sort -u
}

# One at a time (make -j vm runs the perf and kernel builds side by side).
mkdir -p "$BUILD_DIR"
exec 9>"$BUILD_DIR/.linux.lock"
flock 9

# 2. (Re)build the overlay when the pristine tree or the patches changed.
stamp=$(cd "$REPO" && { echo "$src"; echo "$patches" | sed "s|^$REPO/||";
	[ -z "$patches" ] || cat $patches; } | sha256sum | cut -d' ' -f1)
if [ "$(cat "$BUILD_DIR/.linux.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$tree" ]; then
	echo "prepare-tree: creating $tree from $src"
	old_src=$(cat "$BUILD_DIR/.linux.src" 2>/dev/null || true)
	if [ -n "$old_src" ] && [ "$old_src" != "$src" ]; then
		echo "prepare-tree: source tree changed, removing old perf/kernel builds"
		rm -rf "$BUILD_DIR/perf" "$BUILD_DIR/kernel"
	fi
	rm -rf "$tree" "$tree.tmp"
	cp -al "$src" "$tree.tmp" 2>/dev/null || {
		echo "prepare-tree: cannot hard-link across filesystems, copying"
		rm -rf "$tree.tmp"; cp -a "$src" "$tree.tmp"; }
	# Files patched last time get a fresh copy (new mtime), so that make
	# rebuilds what depended on them even if the patch is gone now.
	while read -r f; do
		[ -f "$src/$f" ] && [ -f "$tree.tmp/$f" ] &&
			cp --remove-destination "$src/$f" "$tree.tmp/$f"
	done < <(cat "$BUILD_DIR/.linux.patched" 2>/dev/null || true)
	for p in $patches; do
		echo "prepare-tree: applying ${p#"$REPO"/}"
		patch -d "$tree.tmp" -p1 -N -s --no-backup-if-mismatch -i "$p" ||
			die "${p#"$REPO"/} does not apply to $src"
	done
	# GNU patch writes a new file and renames it over the old one, which
	# must break the hard link: the pristine tree has to stay untouched.
	[ -z "$patches" ] || patched_files $patches > "$BUILD_DIR/.linux.patched"
	while read -r f; do
		[ -e "$src/$f" ] || continue
		[ "$(stat -c %i "$src/$f")" != "$(stat -c %i "$tree.tmp/$f")" ] ||
			die "patching $f wrote through the hard link into $src"
	done < <(cat "$BUILD_DIR/.linux.patched" 2>/dev/null || true)
	mv -T "$tree.tmp" "$tree"
	echo "$src" > "$BUILD_DIR/.linux.src"
	echo "$stamp" > "$BUILD_DIR/.linux.stamp"
fi

# 3. Symlink our files in (every run: cheap, and picks up new files).
cd "$REPO"
while IFS= read -r -d '' f; do
	dst=$tree/$f
	[ -L "$dst" ] && [ "$dst" -ef "$REPO/$f" ] && continue
	[ -d "${dst%/*}" ] || mkdir -p "${dst%/*}"
	ln -sfn "$REPO/$f" "$dst"
done < <(find tools -type f ! -name '.*' ! -name '*~' ! -name '*.o' -print0)

# Drop links to files deleted from the repo; restore the upstream file if any.
while IFS= read -r -d '' l; do
	rm -f "$l"
	f=${l#"$tree"/}
	[ ! -e "$src/$f" ] || cp "$src/$f" "$l"	# a copy: new mtime
done < <(find "$tree/tools" -xtype l -lname '/*' -print0)
exit 0
