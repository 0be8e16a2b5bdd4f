#!/usr/bin/env bash
# Build Jan Wolter's pbnsolve (the seed study's 2D colour peer) for benchmarks/colour_bench.py
# (--pbnsolve DEST/src/pbnsolve). Its code never enters this repository: it is cloned and built
# in a folder outside the checkout. Needs a C compiler and libxml2 (apt-get install libxml2-dev).
#
#   benchmarks/build_pbnsolve.sh [DEST] [SOURCE]
#
# DEST   build folder (default: ../peers/pbnsolve beside the checkout)
# SOURCE git URL or local clone (default: a public GitHub mirror of pbnsolve 1.11 (its CHANGELOG's last entry))
# Prints the path of the binary on its last line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:-$(cd "$HERE/../.." && pwd)/peers/pbnsolve}
SOURCE=${2:-https://github.com/avi-levy/pbnsolve.git}
case "$DEST" in "$(cd "$HERE/.." && pwd)"/*) echo "DEST must be outside the checkout" >&2; exit 2;; esac
if [ ! -d "$DEST/.git" ]; then
  mkdir -p "$(dirname "$DEST")"
  git clone -q "$SOURCE" "$DEST"
fi
cd "$DEST/src"
rm -f ./*.o pbnsolve   # the mirror carries stale objects
make -s CFLAGS="-O2 -I/usr/include/libxml2 -w" >/dev/null
echo "$DEST/src/pbnsolve"
