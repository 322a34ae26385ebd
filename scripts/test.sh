#!/usr/bin/env bash
# Install what the tests need into .venv (first time only) and run the whole suite headless.
# Extra arguments go to pytest (e.g. -k route, -m "not slow").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/scripts/_venv.sh" test
cd "$ROOT"
export QT_QPA_PLATFORM=offscreen
.venv/bin/ruff check app gpu_core maps osutil resources tests scripts
.venv/bin/mypy  # type checks of every package ([tool.mypy] in pyproject.toml)
.venv/bin/lint-imports --no-cache  # layer contracts in pyproject.toml [tool.importlinter]
exec .venv/bin/python -m pytest -q "$@"
