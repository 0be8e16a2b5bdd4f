#!/usr/bin/env bash
# Create/refresh the project's virtual environment .venv (idempotent: reinstalls only when
# requirements*.txt changed). Needs Python 3.11 (the bpy module exists only for 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      PY="$cand"; break
    fi
  done
fi
if [ -z "$PY" ]; then
  echo "bootstrap: Python 3.11 is required (bpy==5.0.1 is built for 3.11 only); set PYTHON=/path/to/python3.11" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv with $PY"
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing requirements (first run downloads the bpy module, ~375 MB)"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
