"""Check translated catalogs (the same as ``python -m tools.catalogs check FILES``)."""

import sys

from tools.catalogs import main

if __name__ == "__main__":
    sys.exit(main(["check", *sys.argv[1:]]))
