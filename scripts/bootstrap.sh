#!/usr/bin/env bash
# Create/refresh the project's virtual environment .venv, the Blender 5.0 line of
# scripts/blender_lines.txt (Python 3.11, bpy 5.0.1, requirements-dev.txt; scripts/line_venv.sh
# reinstalls only when requirements*.txt changed), then the web player and chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/line_venv.sh 5.0 >/dev/null

# The web player (web/): npm packages when web/package*.json changed, the template
# (engine/play/player/nonogram-player.html) when anything of web/ changed. Both are stamped like the venv.
need_root_install() {  # $1 = Debian package: install it when running as root, else say how
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing $1 (apt-get)"
    # another apt (a second set-up, the system's updater) holds the lock: wait for it, not fail
    local apt=(apt-get -o DPkg::Lock::Timeout=600)
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq "$1" >/dev/null \
      || { "${apt[@]}" update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq "$1" >/dev/null; }
  else
    echo "bootstrap: $1 is missing: install it (sudo apt-get install -y $1); $2" >&2
    return 1
  fi
}
if ! command -v npm >/dev/null 2>&1; then
  need_root_install npm "the web player cannot be built and its tests will skip" || true
fi
if command -v npm >/dev/null 2>&1; then
  ci_stamp=web/node_modules/.package.sha256
  ci_want=$(cat web/package.json web/package-lock.json | sha256sum | cut -d' ' -f1)
  # A failure here leaves the rest of the set-up working: the web player's tests then skip, saying why.
  if [ "$(cat "$ci_stamp" 2>/dev/null)" != "$ci_want" ]; then
    echo "bootstrap: installing the web player's npm packages (npm ci)"
    if (cd web && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
      echo "$ci_want" > "$ci_stamp"
    else
      echo "bootstrap: npm ci failed in web/ (offline?); the web player is not built" >&2
    fi
  fi
  build_stamp=engine/play/player/.build.sha256
  build_want=$(cat web/package.json web/package-lock.json web/build.mjs web/src/* | sha256sum | cut -d' ' -f1)
  if [ -f "$ci_stamp" ] && { [ "$(cat "$build_stamp" 2>/dev/null)" != "$build_want" ] \
      || [ ! -f engine/play/player/nonogram-player.html ]; }; then
    if (cd web && node build.mjs); then
      echo "$build_want" > "$build_stamp"
    else
      echo "bootstrap: building the web player failed (web/build.mjs)" >&2
    fi
  fi
fi
# Chromium for the browser tests (tests/test_web_*.py drive it with Playwright; Playwright's own
# browser download is not used).
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  need_root_install chromium "the browser tests will skip" || true
fi
