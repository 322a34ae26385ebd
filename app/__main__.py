"""``python -m app [MAP] [options]``: start the desktop application (same as ``signpost gui``)."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main(["gui", *sys.argv[1:]]))
