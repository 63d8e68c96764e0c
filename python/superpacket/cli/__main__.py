"""`python -m superpacket.cli`: the `superpacket` command."""

import sys

from superpacket.cli import main

sys.exit(main())
