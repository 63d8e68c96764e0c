"""Built-in experiments (the papers' experiments), one module each (`superpacket reproduce NAME`),
each exporting its `Experiment` record as EXPERIMENT (superpacket.experiments.record)."""

from superpacket.experiments import (
    attacks,
    datacenter,
    datatag,
    dcr,
    dcr_multihop,
    fast_burstiness,
    incast,
    incast_map,
    jumbo,
    lion,
    loss_sensitivity,
    mbs,
    riops_goodput,
    riops_web,
    short_long,
    threshold,
)
from superpacket.experiments.record import Claim, Experiment, Paper, Quick

#: Each experiment's record (its module's EXPERIMENT) by the name `superpacket reproduce`
#: takes, in the order `superpacket list` shows them.
EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (
    incast.EXPERIMENT, incast_map.EXPERIMENT, short_long.EXPERIMENT, jumbo.EXPERIMENT, threshold.EXPERIMENT,
    loss_sensitivity.EXPERIMENT, riops_goodput.EXPERIMENT, riops_web.EXPERIMENT, dcr.EXPERIMENT,
    dcr_multihop.EXPERIMENT, mbs.EXPERIMENT, lion.EXPERIMENT, fast_burstiness.EXPERIMENT, datatag.EXPERIMENT,
    attacks.EXPERIMENT, datacenter.EXPERIMENT)}

__all__ = ["EXPERIMENTS", "Claim", "Experiment", "Paper", "Quick"]
