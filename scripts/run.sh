#!/usr/bin/env bash
# Install Signpost into .venv (first time only) and start the app on the bundled sample map.
# Extra arguments go to `signpost gui` (e.g. a map file, --profile walk).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/scripts/_venv.sh"
# No arguments: the sample on the multimodal profile (roads, rail and stations), as the
# README's first picture shows it.
if [ "$#" -eq 0 ]; then set -- --profile multimodal; fi
exec "$ROOT/.venv/bin/signpost" gui "$@"
