#!/bin/sh
# Install the Debian packages librdtalloc needs to build and test, when they
# are missing. Idempotent; does nothing when everything is present.
set -eu

PKGS="build-essential cmake pkg-config libhwloc-dev hwloc-nox libjson-c-dev \
libcmocka-dev libcpuid-dev cpuid clang llvm libbpf-dev bpftool libyaml-dev \
libclang-rt-14-dev python3 libudev-dev fuse3 libfuse3-dev \
util-linux passwd prometheus runc busybox-static python3-yaml valgrind \
libmicrohttpd-dev libsystemd-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages:$missing" >&2
	echo "deps.sh: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi

echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
