#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: a .venv at the repo root with Signpost installed
# (editable) plus the given extras, and the system libraries Qt needs on Debian.
# Idempotent: re-installs only when pyproject.toml changed since the last install.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EXTRAS=${1:-}
PY=${PYTHON:-python3}

# Qt (PySide6) needs a few shared libraries even offscreen, and its xcb plugin (a window on
# an X display) a few more; install them on Debian/Ubuntu when missing and we are root (CI
# and fresh machines). Elsewhere just warn.
QT_DEBS="libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0
 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
 libxcb-randr0 libxcb-render-util0 libxcb-image0 libxcb-xinerama0 libxcb-xkb1"
if command -v dpkg-query >/dev/null 2>&1; then
  missing=""
  for p in $QT_DEBS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "installing system libraries for Qt:$missing"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >/dev/null
    else
      echo "warning: Qt may need these Debian packages:$missing (run as root or: sudo apt-get install$missing)" >&2
    fi
  fi
fi

cd "$ROOT"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
STAMP=".venv/.signpost-installed${EXTRAS:+-$EXTRAS}"
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".${EXTRAS:+[$EXTRAS]}"
  touch "$STAMP"
fi
