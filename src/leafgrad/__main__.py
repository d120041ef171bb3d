"""``python -m leafgrad ...``: the same as the ``leafgrad`` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
