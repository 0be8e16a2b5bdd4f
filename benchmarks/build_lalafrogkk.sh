#!/usr/bin/env bash
# Build LalaFrogKK (CGI-LAB/Nonogram, the tournament champion of the LalaFrogKK paper) for the
# side-by-side tournament benchmark (benchmarks/tournament.py). Its code never enters this
# repository: it is cloned and built in a folder outside the checkout.
#
#   benchmarks/build_lalafrogkk.sh [DEST] [SOURCE]
#
# DEST   build folder (default: ../peers/lalafrogkk beside the checkout)
# SOURCE git URL or local clone to take it from (default: the public GitHub repository)
# Prints the path of the binary on its last line.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:-$(cd "$HERE/../.." && pwd)/peers/lalafrogkk}
SOURCE=${2:-https://github.com/CGI-LAB/Nonogram.git}
COMMIT=3f15247fa8405a95891d7785b27c85e3f9b801a3   # the published tournament version
case "$DEST" in "$(cd "$HERE/.." && pwd)"/*) echo "DEST must be outside the checkout" >&2; exit 2;; esac
if [ ! -d "$DEST/.git" ]; then
  mkdir -p "$(dirname "$DEST")"
  git clone -q "$SOURCE" "$DEST"
fi
cd "$DEST"
git checkout -q "$COMMIT"
# Written for MSVC: the #include names differ in case from the files, lineSolver.cpp includes
# <intrin.h> (unused on gcc) and main.cpp uses CLK_TCK.
ln -sf Hash.h hash.h; ln -sf Puzzle.h puzzle.h; ln -sf LineSolver.h lineSolver.h; ln -sf SearchSolver.h searchSolver.h
mkdir -p compat && : > compat/intrin.h
# MODE 1 (config.h): the tournament mode, the first solution of each of 1000 puzzles in input.txt.
# Single-threaded, as it is. Search.Scheduling.cpp is MODE 0's Windows-only scheduler.
g++ -O3 -march=native -Icompat -DCLK_TCK=CLOCKS_PER_SEC -include cmath -include cstring -w \
    -o lalafrog $(ls *.cpp | grep -v Scheduling)
echo "$DEST/lalafrog"
