"""Built-in experiments of SCENARIOS.md, one module each (`superpacket reproduce NAME`)."""

from superpacket.experiments import incast, jumbo, short_long

EXPERIMENTS = {"incast": incast, "short-long": short_long, "jumbo": jumbo}
