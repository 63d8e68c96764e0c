"""Built-in experiments (the papers' experiments), one module each (`superpacket reproduce NAME`)."""

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

EXPERIMENTS = {"incast": incast, "incast-map": incast_map, "short-long": short_long, "jumbo": jumbo,
               "threshold": threshold,
               "loss-sensitivity": loss_sensitivity, "riops-goodput": riops_goodput, "riops-web": riops_web,
               "dcr": dcr, "dcr-multihop": dcr_multihop, "mbs": mbs, "lion": lion,
               "fast-burstiness": fast_burstiness, "datatag": datatag, "attacks": attacks,
               "datacenter": datacenter}
