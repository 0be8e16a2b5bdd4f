#!/usr/bin/env bash
# The README's main job: Blender (the bpy module) runs the headless batch on its built-in
# Suzanne at two resolutions: puzzle files, solver reports, the Table 4/5 summary, a .blend and
# a Cycles render per puzzle, all under out/ (git-ignored). Extra arguments go to batch.py,
# e.g. `bash scripts/main_job.sh --input suzanne ../shared/models/trex.glb`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
out="${NONOGRAM_OUT:-out/main_job}"
mkdir -p "$out"
status=0
# a playable page per puzzle and index.html, when the set-up could build the web player
web=()
[ -f engine/player/nonogram-player.html ] && web=(--export-html)
.venv/bin/python batch.py -- --input suzanne --resolution 12 24 --solvers seed \
    --render --blend "${web[@]}" --out "$out" "$@" || status=$?
echo
echo "main job outputs ($( [ "$status" = 0 ] && echo ok || echo "FAILED, exit $status")):"
echo "  folder:  $(cd "$out" && pwd)"
echo "  summary: $(cd "$out" && pwd)/summary.csv"
ls -1 "$out" | sed 's/^/    /'
exit "$status"
