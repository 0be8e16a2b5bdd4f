#!/usr/bin/env bash
# The README's main job: Blender (the bpy module of the newest line in scripts/blender_lines.txt
# this machine can run: 5.3 where Python 3.13 is found, else 5.0 in .venv, saying so) runs the
# headless batch on its built-in Suzanne (and the shared duck, when ../shared is there) at two
# resolutions: puzzle files, solver
# reports, the Table 4/5 summary, the designed puzzles (clues hidden), a .blend, a Cycles render of
# the coloured reveal and a playable web page per puzzle with an index.html, all under out/
# (git-ignored). Extra arguments go to batch.py,
# e.g. `bash scripts/main_job.sh --input suzanne ../shared/models/trex.glb`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
newest=$(grep -Ev '^[[:space:]]*(#|$)' scripts/blender_lines.txt | tail -n 1 | awk '{print $1}')
if ! py=$(bash scripts/line_venv.sh "$newest"); then
  echo "main job: Blender $newest cannot run here (the message above says what to install); running on Blender 5.0 (.venv) instead" >&2
  py=.venv/bin/python
fi
echo "main job: $("$py" -c 'import bpy, sys; print("Blender %s (bpy module), Python %d.%d" % (bpy.app.version_string, *sys.version_info[:2]))' 2>/dev/null)"
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
"$py" batch.py -- --input "${inputs[@]}" --resolution 12 24 --solvers seed \
    --design --colours 6 --puzzle-colours 2 --render solved --blend "${web[@]}" --out "$out" "$@" || status=$?
echo
echo "main job outputs ($( [ "$status" = 0 ] && echo ok || echo "FAILED, exit $status")):"
echo "  folder:  $(cd "$out" && pwd)"
echo "  summary: $(cd "$out" && pwd)/summary.csv"
ls -1 "$out" | sed 's/^/    /'
exit "$status"
