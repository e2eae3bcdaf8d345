#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-ns3-mpi.sh - build ns-3 with its distributed engine (MPI) once and
# cache it, for fabrics past one machine (docs/sim.md): Debian's own ns3
# source package (its patches applied), configured with NS3_MPI and only
# the modules the simulator links (core, network, internet, point-to-point,
# traffic-control, bridge, stats, mpi), against Debian's Open MPI, with
# one change: ns-3 receives a remote packet into a buffer of 2000 bytes
# (MAX_MPI_MSG_SIZE), which a 4 KiB RoCE frame overruns (MPI_ERR_TRUNCATE,
# or a crash in DistributedSimulatorImpl::Run), so the buffers take 16 KiB,
# past a 9000-byte jumbo frame and its serialised tags.  Debian's
# libns3-dev has no MPI.  The source tree stays in the cache, named by the
# source version, with ns-3's own output in it (build/include: headers
# that include the sources', build/lib: the libraries); "make sim-mpi"
# then builds build/symofan-sim-mpi against it.  Needs deb-src for bookworm: a sources entry is added under
# /etc/apt/sources.list.d when apt has none.  Rebuilt only when the source
# version changes; otherwise it prints where the build is.
#
# Usage: scripts/build-ns3-mpi.sh [--print-dir] [-j N]
#   --print-dir   print the cache folder (building first if needed)
#   -j N          parallel jobs (default: the CPUs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

print_dir=0
jobs=$(nproc)
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1; shift ;;
	-j) jobs=${2:?}; shift 2 ;;
	-h|--help) sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "build-ns3-mpi.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$jobs" in ''|*[!0-9]*|0) die "-j wants a positive number, got '$jobs'" ;; esac

ver=$(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null) ||
	die "libns3-dev is not installed: run scripts/install-deps.sh"
prefix=$(ns3_mpi_dir) || die "cannot name the MPI build's folder"
if [ -f "$prefix/.complete" ]; then
	[ "$print_dir" -eq 0 ] || echo "$prefix"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (it installs Open MPI and reads Debian's source)"

start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
if ! command -v mpicxx >/dev/null || ! command -v dpkg-source >/dev/null; then
	apt-get install -y -q libopenmpi-dev openmpi-bin dpkg-dev cmake >&2 ||
		die "cannot install Open MPI (apt-get update first?)"
fi
if ! apt-cache showsrc ns3 2>/dev/null | grep -qx "Version: $ver"; then
	grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ /etc/apt/sources.list ||
		cat >/etc/apt/sources.list.d/symofan-debsrc.sources <<-EOF
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
	apt-get update -q >&2 || die "apt-get update failed"
fi

work=$(mktemp -d /tmp/ns3-mpi.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "build-ns3-mpi.sh: ns3 $ver with MPI into $prefix, -j $jobs" >&2
(cd "$work" && apt-get source -q --download-only "ns3=$ver" >&2) ||
	die "cannot fetch the ns3 $ver source package"
rm -rf "$prefix"
mkdir -p "$prefix"
dpkg-source -x "$work"/ns3_*.dsc "$prefix/src" >/dev/null ||
	die "cannot unpack the ns3 source package"
rm -f "$prefix"/ns3_*.orig.tar.*	# dpkg-source's copy, next to the tree
tree=$(echo "$prefix"/src/ns-3.*)
sed -i 's/^const uint32_t MAX_MPI_MSG_SIZE = 2000;/const uint32_t MAX_MPI_MSG_SIZE = 16384;/' \
	"$tree/src/mpi/model/granted-time-window-mpi-interface.h"
sed -i 's/^const uint32_t NULL_MESSAGE_MAX_MPI_MSG_SIZE = 2000;/const uint32_t NULL_MESSAGE_MAX_MPI_MSG_SIZE = 16384;/' \
	"$tree/src/mpi/model/null-message-mpi-interface.cc"
grep -q 'MAX_MPI_MSG_SIZE = 16384' "$tree/src/mpi/model/granted-time-window-mpi-interface.h" ||
	die "cannot raise ns-3's MPI message size (has the source changed?)"
cmake -S "$tree" -B "$work/build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=release \
	-DNS3_MPI=ON -DNS3_ENABLED_MODULES="core;network;internet;point-to-point;traffic-control;bridge;stats;mpi" \
	-DNS3_EXAMPLES=OFF -DNS3_TESTS=OFF -DNS3_PYTHON_BINDINGS=OFF -DNS3_GTK3=OFF \
	-DNS3_VISUALIZER=OFF -DNS3_NETANIM=OFF -DNS3_EMU=OFF -DNS3_TAP=OFF -DNS3_SQLITE=OFF \
	-DNS3_GSL=OFF -DNS3_WARNINGS_AS_ERRORS=OFF >"$work/configure.log" 2>&1 ||
	{ tail -20 "$work/configure.log" >&2; die "ns-3's configure failed"; }
grep -q 'MPI Support *: ON' "$work/configure.log" ||
	die "ns-3 configured without MPI (is libopenmpi-dev installed?)"
# the libraries only: "all" would build ns-3's test library as well
make -C "$work/build" -j "$jobs" libcore libnetwork libbridge libstats libtraffic-control \
	libinternet libpoint-to-point libmpi >"$work/build.log" 2>&1 ||
	{ tail -30 "$work/build.log" >&2; die "ns-3's build failed"; }
if [ ! -e "$tree/build/lib/libns3-mpi.so" ] || [ ! -d "$tree/build/include/ns3" ]; then
	die "no libns3-mpi.so or headers in $tree/build"
fi
ln -sfn "$tree/build/lib" "$prefix/lib"
ln -sfn "$tree/build/include" "$prefix/include"
touch "$prefix/.complete"
echo "build-ns3-mpi.sh: done in $(($(date +%s) - start)) s" >&2
[ "$print_dir" -eq 0 ] || echo "$prefix"
