#!/usr/bin/env bash
# The tests on the Blender lines of scripts/blender_lines.txt: 5.0 first (.venv, the whole suite),
# then 4.2 LTS and 4.5 LTS with Python 3.11 and 5.1, 5.2 and 5.3 with Python 3.13, each in a venv
# of its own made by scripts/line_venv.sh (reused while its requirements file is unchanged; ~1.2 GB
# each). A line marked "blender" runs every test file with the blender marker; 5.3 ("all") runs
# the whole suite too, so the engine's tests run under numpy 2 as well as 1.26. A line whose Python
# is not on this machine is not run and fails the script, saying what to install. Exit status:
# non-zero when any line fails or could not run. scripts/test.sh runs it after the linter.
#
#   bash scripts/test_blender_versions.sh                          # 5.0, 4.2, 4.5, 5.1, 5.2, 5.3
#   NONOGRAM_BPY_VERSIONS="4.2 5.3" bash scripts/test_blender_versions.sh   # only those ("42 53" too)
#   bash scripts/test_blender_versions.sh -- -x -k batch           # extra pytest arguments after --
set -euo pipefail
cd "$(dirname "$0")/.."

# .venv's line first: the one every developer runs, and the engine tests under numpy 1.26
lines=$(grep -Ev '^[[:space:]]*(#|$)' scripts/blender_lines.txt)
all_lines="$(awk '$3 == ".venv" {print $1}' <<<"$lines") $(awk '$3 != ".venv" {print $1}' <<<"$lines" | tr '\n' ' ')"
VERSIONS="${NONOGRAM_BPY_VERSIONS-$all_lines}"
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; EXTRA=("$@"); break ;;
    *) echo "test_blender_versions: unknown argument $1 (use -- before pytest arguments)" >&2; exit 2 ;;
  esac
  shift
done

# Every Blender test file (the "blender" marker), passed by name.
test_files() {
  grep -l "pytest.mark.blender" tests/test_*.py
}

status=0
summary=""
for v in $VERSIONS; do
  case "$v" in
    [0-9][0-9]) v="${v:0:1}.${v:1}" ;;  # "42" as the older NONOGRAM_BPY_VERSIONS spelled it
  esac
  runs=$(awk -v l="$v" '$1 == l {print $5}' scripts/blender_lines.txt)
  if [ -z "$runs" ]; then
    echo "test_blender_versions: $v is not a line of scripts/blender_lines.txt" >&2
    exit 2
  fi
  t0=$(date +%s)
  if ! py=$(bash scripts/line_venv.sh "$v"); then
    summary="$summary
Blender $v: NOT RUN (see the line_venv message above)"
    status=1
    continue
  fi
  versions=$("$py" -c 'import importlib.metadata as m, sys; print("bpy %s, Python %d.%d, numpy %s" % (m.version("bpy"), *sys.version_info[:2], m.version("numpy")))')
  echo "== Blender $v: $versions ($(dirname "$(dirname "$py")"), runs: $runs)"
  log=$(mktemp)
  set +e
  if [ "$runs" = all ]; then
    "$py" -m pytest -q ${EXTRA[@]+"${EXTRA[@]}"} 2>&1 | tee "$log"
  else
    # shellcheck disable=SC2046
    "$py" -m pytest -q -m blender $(test_files) ${EXTRA[@]+"${EXTRA[@]}"} 2>&1 | tee "$log"
  fi
  rc=${PIPESTATUS[0]}
  set -e
  counts=$(grep -E '[0-9]+ (passed|failed|errors?|skipped|deselected).* in [0-9.]+s' "$log" | tail -n 1 | sed -E 's/^=+ //; s/ =+$//')
  rm -f "$log"
  summary="$summary
Blender $v ($versions): pytest exit $rc, ${counts:-no summary line} ($(( $(date +%s) - t0 )) s with set-up)"
  [ "$rc" = 0 ] || status=1
done
echo "== Blender lines:$summary"
exit $status
