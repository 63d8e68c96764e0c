"""The `superpacket` command line (`superpacket.cli:main`, `python -m superpacket.cli`).

Its parts: `app` (the parser and the run, list, reproduce and validate commands),
`bench` (the benchmarks), `sweep` (the sweep and report commands and `bench --sweep`)
and `checks` (checks of command-line values, made before anything runs). The library
never imports this package; the bounds and the seed parser the checks use are the
library's (superpacket.limits, superpacket.seeds).
"""

from superpacket.cli.app import EXIT_BAD_INPUT, main

__all__ = ["EXIT_BAD_INPUT", "main"]
