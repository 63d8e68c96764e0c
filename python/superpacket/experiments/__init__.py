"""Built-in experiments of SCENARIOS.md, one module each (`superpacket reproduce NAME`)."""

from superpacket.experiments import incast

EXPERIMENTS = {"incast": incast}
