#!/bin/bash
# Check that the Debian packages needed to build perf (and the test kernel)
# are installed; install the missing ones when root.
#
# usage: scripts/deps.sh [extra-package...]
set -eu

pkgs="build-essential flex bison bc ccache pkg-config xz-utils patch
libtraceevent-dev libelf-dev libdw-dev libunwind-dev libslang2-dev
libcapstone-dev libzstd-dev liblzma-dev libnuma-dev libssl-dev libcap-dev
python3-dev python3-setuptools libperl-dev systemtap-sdt-dev
libbabeltrace-dev zlib1g-dev"

missing=
for p in $pkgs "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: missing packages:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "deps: run: sudo apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $missing ||
	{ apt-get update && apt-get install -y --no-install-recommends $missing; }
