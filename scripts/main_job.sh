#!/usr/bin/env bash
# The README's main job: Blender (the bpy module) runs the headless batch on its built-in
# Suzanne (and the shared duck, when ../shared is there) at two resolutions: puzzle files, solver
# reports, the Table 4/5 summary, the designed puzzles (clues hidden), a .blend, a Cycles render of
# the coloured reveal and a playable web page per puzzle with an index.html, all under out/
# (git-ignored). Extra arguments go to batch.py,
# e.g. `bash scripts/main_job.sh --input suzanne ../shared/models/trex.glb`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
out="${NONOGRAM_OUT:-out/main_job}"
mkdir -p "$out"
status=0
# a playable page per puzzle and index.html, when the set-up could build the web player
web=()
[ -f engine/play/player/nonogram-player.html ] && web=(--export-html)
# the textured duck beside Suzanne when the shared test models are there, so the colours show:
# the duck as a two-colour puzzle (Suzanne, of one colour, stays black-and-white)
inputs=(suzanne)
[ -f ../shared/models/duck.glb ] && inputs+=(../shared/models/duck.glb)
.venv/bin/python batch.py -- --input "${inputs[@]}" --resolution 12 24 --solvers seed \
    --design --colours 6 --puzzle-colours 2 --render solved --blend "${web[@]}" --out "$out" "$@" || status=$?
echo
echo "main job outputs ($( [ "$status" = 0 ] && echo ok || echo "FAILED, exit $status")):"
echo "  folder:  $(cd "$out" && pwd)"
echo "  summary: $(cd "$out" && pwd)/summary.csv"
ls -1 "$out" | sed 's/^/    /'
exit "$status"
