# Sourced by scripts/bootstrap.sh and scripts/test_blender_versions.sh: sets PY to a Python 3.11
# (the bpy modules are built for 3.11 only): $PYTHON when set, else the first of python3.11 and
# python3 on the PATH that is 3.11; empty when there is none.
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      PY="$cand"; break
    fi
  done
fi
