"""``python -m littleghost_testing.cli check TARGET``."""

import sys

from ._main import main

sys.exit(main())
