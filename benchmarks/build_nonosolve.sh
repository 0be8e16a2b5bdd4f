#!/usr/bin/env bash
# Build nonosolve (hyouv/FastNonogramSolver: bit-parallel line solving, probing, DFS with
# restarts, a Kissat/CaDiCaL fallback) for the side-by-side tournament benchmark
# (benchmarks/tournament.py --nonosolve DEST/bin/nonosolve). Its code never enters this
# repository: it is cloned and built in a folder outside the checkout, with its own script
# (deps/build_sat.sh), which fetches and builds CaDiCaL and Kissat beside it.
#
#   benchmarks/build_nonosolve.sh [DEST] [SOURCE]
#
# DEST   build folder (default: ../peers/nonosolve beside the checkout)
# SOURCE git URL or local clone (default: the public GitHub repository)
# Prints the path of the binary on its last line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:-$(cd "$HERE/../.." && pwd)/peers/nonosolve}
SOURCE=${2:-https://github.com/hyouv/FastNonogramSolver.git}
case "$DEST" in "$(cd "$HERE/.." && pwd)"/*) echo "DEST must be outside the checkout" >&2; exit 2;; esac
if [ ! -d "$DEST/.git" ]; then
  mkdir -p "$(dirname "$DEST")"
  git clone -q "$SOURCE" "$DEST"
fi
cd "$DEST"
J=${J:-2} bash deps/build_sat.sh
make CXX=g++
echo "$DEST/bin/nonosolve"
