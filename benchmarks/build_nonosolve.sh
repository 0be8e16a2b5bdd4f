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
# Optional, in the environment:
#   SAT_SOURCES=DIR  local clones DIR/cadical and DIR/kissat, for a machine without internet
#                    access (deps/build_sat.sh clones them from GitHub otherwise)
#   CADICAL_REF=REF  the CaDiCaL revision to build instead of the one deps/build_sat.sh pins
#                    (e.g. rel-2.2.0 when the local clone lacks the pinned commit)
#   CPU_CLOCK=1      also build DEST/bin/nonosolve-cpu: the same sources with its clock
#                    (now_sec() in src/engine.h) on the process's CPU time, so that its --taai
#                    log's times and its --timeout are CPU seconds like every other figure of
#                    benchmarks/tournament.py (its own clock is wall time: on a shared machine a
#                    process waiting for a core would be charged for it)
# Prints the path of the binary on its last line (the CPU-clock one when CPU_CLOCK=1).
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
if [ -n "${SAT_SOURCES:-}" ]; then  # deps/build_sat.sh only checks out what is already there
  mkdir -p third_party
  for s in cadical kissat; do
    [ -d "third_party/$s" ] || git clone -q "$SAT_SOURCES/$s" "third_party/$s"
  done
fi
if [ -n "${CADICAL_REF:-}" ]; then
  git -C third_party/cadical rev-parse -q --verify "$CADICAL_REF^{commit}" >/dev/null
  sed -i -E "s|^(fetch cadical [^ ]+ )[0-9a-f]+$|\1$(git -C third_party/cadical rev-parse "$CADICAL_REF^{commit}")|" \
      deps/build_sat.sh
fi
J=${J:-2} bash deps/build_sat.sh
make CXX=g++
if [ "${CPU_CLOCK:-}" = 1 ]; then
  rm -rf build-cpu && cp -r src build-cpu
  sed -i 's|return duration<double>(steady_clock::now().time_since_epoch()).count();|timespec ts; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, \&ts); return ts.tv_sec + 1e-9 * ts.tv_nsec;|' \
      build-cpu/engine.h
  grep -q CLOCK_PROCESS_CPUTIME_ID build-cpu/engine.h  # its clock is where this expects it
  g++ -std=c++17 -O3 -march=native -DNDEBUG -include ctime -Ithird_party/cadical/src -Ithird_party/kissat/src \
      -Ibuild-cpu -o bin/nonosolve-cpu build-cpu/main.cpp build-cpu/sat.cpp third_party/cadical/build/libcadical.a \
      third_party/kissat/build/libkissat.a
  echo "$DEST/bin/nonosolve-cpu"
else
  echo "$DEST/bin/nonosolve"
fi
