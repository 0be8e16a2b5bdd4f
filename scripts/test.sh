#!/usr/bin/env bash
# The whole test suite on a fresh machine: set up .venv, then ruff, then pytest (engine + Blender tests on
# bpy 5.0), then the Blender tests on bpy 4.2 LTS and 4.5 LTS (scripts/test_blender_versions.sh,
# a venv each). Fails when either part fails. NONOGRAM_BPY_VERSIONS="" leaves the older versions out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
status=0
# The linter first (seconds): ruff.toml says what it checks.
.venv/bin/python -m ruff check . || status=$?
.venv/bin/python -m pytest -q "$@" || status=$?
if [ -n "${NONOGRAM_BPY_VERSIONS-42 45}" ]; then
  bash scripts/test_blender_versions.sh || status=1
fi
exit $status
