"""``python -m app [MAP] [options]``: start the desktop application (same as ``signpost gui``)."""

import sys

from app.cli import main

if __name__ == "__main__":
    argv = sys.argv[1:]
    # --version is the program's, not the gui command's
    sys.exit(main(argv if argv[:1] == ["--version"] else ["gui", *argv]))
