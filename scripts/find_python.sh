# Sourced by the set-up and test scripts: `find_python 3.13` sets PY to a Python 3.13 interpreter
# (its sys.executable), or leaves PY empty and says in PY_WHY where it looked and what to install.
# Where it looks, in order: $PYTHON313 (PYTHON311 for 3.11, or the older name PYTHON), which is then
# the only candidate (a wrong one is an error, never passed over); python3.13 and python3 on the
# PATH; pyenv's versions ($(pyenv root)/versions/3.13.*, newest first); /usr/local/bin, /usr/bin.
# A candidate counts only when it runs and is that version (a pyenv shim of a version that is not
# selected fails to run, so it does not count).

_python_is() {  # $1 candidate, $2 "3.13": print its sys.executable when it runs and is that version
  "$1" -c "import sys; v = '%d.%d' % sys.version_info[:2]; print(sys.executable) if v == '$2' else sys.exit(1)" 2>/dev/null
}

find_python() {
  local want="$1" var="PYTHON${1/./}" given cand found root
  PY=""
  PY_WHY=""
  given="${!var:-}"
  if [ -z "$given" ] && [ "$want" = 3.11 ]; then
    given="${PYTHON:-}"
  fi
  if [ -n "$given" ]; then
    if found=$(_python_is "$given" "$want") && [ -n "$found" ]; then
      PY="$found"
      return 0
    fi
    PY_WHY="\$$var is set to '$given', which is not a working Python $want: point it at a python$want, or unset it to let the scripts look for one"
    return 1
  fi
  local cands=("python$want" python3)
  for root in "$(pyenv root 2>/dev/null)" "${PYENV_ROOT:-$HOME/.pyenv}"; do
    [ -n "$root" ] && [ -d "$root/versions" ] || continue
    while IFS= read -r cand; do cands+=("$cand"); done < <(
      ls -d "$root"/versions/"$want".*/bin/python"$want" 2>/dev/null | sort -t. -k3 -n -r)
  done
  cands+=("/usr/local/bin/python$want" "/usr/bin/python$want")
  for cand in "${cands[@]}"; do
    if found=$(_python_is "$cand" "$want") && [ -n "$found" ]; then
      PY="$found"
      return 0
    fi
  done
  PY_WHY="no Python $want found (looked for python$want and python3 on the PATH, in pyenv's versions and in /usr/local/bin and /usr/bin): install Python $want (e.g. \`pyenv install $want\`, or your system's python$want package with its venv module), or set $var=/path/to/python$want"
  return 1
}
