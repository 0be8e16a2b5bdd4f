#!/usr/bin/env bash
# The whole test suite on a fresh machine: set up .venv, then pytest (engine + Blender tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/python -m pytest -q "$@"
