#!/bin/sh
# demo.sh: the quick start. Installs the Debian packages that are missing
# (scripts/deps.sh; root needed only for that), builds into ./build and runs
# `rdtctl demo`, the example of the 2016 resctrl patch set (then named rscctrl) on an in-memory simulator.
set -eu

cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build
cmake --build build -j2
exec build/cli/rdtctl demo
