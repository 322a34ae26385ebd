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
# install_debs WHAT PKG...: the Debian packages missing, as root (quiet; skipped when all
# are installed, so a second run costs nothing); elsewhere a warning naming them.
install_debs() {
  local what=$1; shift
  command -v dpkg-query >/dev/null 2>&1 || return 0
  local missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  [ -n "$missing" ] || return 0
  if [ "$(id -u)" = 0 ]; then
    echo "installing $what:$missing"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends $missing) >/dev/null
  else
    echo "warning: $what needs these Debian packages:$missing (run as root or: sudo apt-get install$missing)" >&2
  fi
}
install_debs "system libraries for Qt" $QT_DEBS
# The database tests (tests/postgis) start a throwaway PostgreSQL with PostGIS and
# pgRouting, and load the sample map with osm2pgrouting; the metapackages follow the
# distribution's PostgreSQL version (Debian 12: 15). Without them those tests skip.
if [[ ",$EXTRAS," == *",test,"* ]]; then
  install_debs "PostgreSQL, PostGIS and pgRouting for the database tests" \
    postgresql postgresql-postgis postgresql-pgrouting osm2pgrouting || true  # optional
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
