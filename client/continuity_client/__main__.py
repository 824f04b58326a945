"""``python -m continuity_client`` is the same as the ``continuity`` command."""

import sys

from continuity_client.cli import main

sys.exit(main())
