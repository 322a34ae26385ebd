#!/usr/bin/env bash
# Install Signpost into .venv (first time only) and start the app on the bundled sample map.
# Extra arguments go to `signpost gui` (e.g. a map file, --profile walk).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/scripts/_venv.sh"
exec "$ROOT/.venv/bin/signpost" gui "$@"
