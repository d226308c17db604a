"""``python -m gfbgcn``: the same as the ``gfbgcn`` command."""

import sys

from gfbgcn.cli import main

sys.exit(main())
