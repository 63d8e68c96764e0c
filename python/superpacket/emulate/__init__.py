"""`superpacket emulate`: a scenario run on real kernel TCP. Each host is a network
namespace whose kernel TCP is set from the scenario; the links (rate, propagation delay,
DropTail queue) are the project's own router, superpacket-emu (crates/emu), forwarding
real frames between the hosts' veth interfaces.

`plan` turns a scenario into what is built, or refuses it with one line naming the field
it cannot honour, before anything is created; `testbed` builds and removes the
namespaces; `run` runs the traffic and makes the tables; `gen` is the traffic
generator that runs inside the namespaces.
"""

from superpacket.emulate.plan import Plan, Refused, make_plan
from superpacket.emulate.run import EmulationResults, Interrupted, emulate, router_env
from superpacket.emulate.testbed import TestbedError, leftovers, router_binary, unavailable

__all__ = ["EmulationResults", "Interrupted", "Plan", "Refused", "TestbedError", "emulate", "leftovers", "make_plan",
           "router_binary", "router_env", "unavailable"]
