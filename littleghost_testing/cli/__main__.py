"""``python -m littleghost_testing.cli check TARGET``."""

import sys

from .main import main

sys.exit(main())
