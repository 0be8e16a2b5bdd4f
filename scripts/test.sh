#!/usr/bin/env bash
# The whole test suite on a fresh machine: set up .venv, say whether the package index has a newer
# Blender than the lines we test (never failing for it), ruff, then the tests on every Blender line
# of scripts/blender_lines.txt (scripts/test_blender_versions.sh): the whole suite on 5.0 (.venv,
# numpy 1.26) and on 5.3 (numpy 2), the Blender tests on 4.2, 4.5, 5.1 and 5.2, each line in a venv
# of its own. Fails when the linter or any line fails, or a line's Python is missing. Arguments go
# to every pytest run; NONOGRAM_BPY_VERSIONS="5.0 5.3" runs only those lines ("" only .venv's 5.0).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
status=0
# Is a newer Blender out than the lines below? A notice, never a failure (nor when offline).
.venv/bin/python scripts/check_blender_lines.py || true
# The linter first (seconds): ruff.toml says what it checks.
.venv/bin/python -m ruff check . || status=$?
lines="${NONOGRAM_BPY_VERSIONS-}"
if [ -n "${NONOGRAM_BPY_VERSIONS+set}" ] && [ -z "$lines" ]; then
  lines=5.0
fi
if [ -n "$lines" ]; then
  NONOGRAM_BPY_VERSIONS="$lines" bash scripts/test_blender_versions.sh -- "$@" || status=1
else
  bash scripts/test_blender_versions.sh -- "$@" || status=1
fi
exit $status
