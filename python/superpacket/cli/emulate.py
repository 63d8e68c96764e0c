"""`superpacket emulate FILE.toml [--out DIR] [--compare]`: the scenario on real kernel TCP through
the project's router (superpacket.emulate). Everything that cannot be honoured is
refused with one line, exit 2, before anything is created."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from superpacket.cli import checks


def add_parser(sub: Any) -> None:
    e = sub.add_parser("emulate", help="run a scenario on real kernel TCP: network namespaces as hosts, the "
                                       "project's router (superpacket-emu) as the links (root)")
    e.add_argument("file", metavar="FILE|EXAMPLE",
                   help="a scenario file, or the name of a packaged example (a dumbbell of bulk flows)")
    e.add_argument("--out", default=None, metavar="DIR",
                   help="write the Parquet tables, summary.json and router.json here")
    e.add_argument("--compare", action="store_true",
                   help="also run the scenario in the simulator (first, before anything is created) and print "
                        "both side by side; with --out, the simulator's tables go to DIR/simulated and the "
                        "comparison to DIR/compare.parquet")
    e.set_defaults(fn=cmd_emulate)


def _out_writable(path: str) -> str | None:
    """Whether a folder can be made where --out goes, by making one (hidden, removed at
    once): the emulation runs as root, for whom access(2) grants every write, so `--out
    /proc/x` passed checks.out_dir and failed only after the whole run."""
    import os
    import tempfile
    from pathlib import Path

    q = Path(path).absolute()
    while not q.exists():
        q = q.parent
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".superpacket-probe-", dir=q))
    except OSError as e:
        return f"--out {path}: not writable ({q}: {e.strerror or e})"
    return None


def _out_names_free(path: str, compare: bool) -> str | None:
    """The names the emulation writes into an existing --out must be free for it (a file
    where it writes a file, a folder for `simulated`): found after the run, the results
    would be lost in a failed write."""
    from pathlib import Path

    from superpacket import outputs

    d = Path(path)
    files = [f"{t.name}.parquet" for t in outputs.EMULATE_TABLES] + ["summary.json", "router.json", "scenario.toml"]
    for name in files + (["compare.parquet"] if compare else []):
        if (d / name).is_dir():
            return f"--out {path}: {name} is a folder there, and the emulation writes a file of that name"
    if compare and (d / "simulated").exists() and not (d / "simulated").is_dir():
        return f"--out {path}: simulated is a file there, and --compare writes the simulator's tables into a folder " \
               f"of that name"
    return None


def cmd_emulate(a: argparse.Namespace) -> int:
    from superpacket import _core, _toml, packaged
    from superpacket._core import ScenarioError

    if bad := (checks.out_dir(a.out) or _out_writable(a.out) or _out_names_free(a.out, a.compare)) if a.out else None:
        return checks.fail(bad)
    a.file = packaged.resolve(a.file)
    try:
        text = _toml.read_scenario_file(a.file)
        sc = _toml.loads(text)
    except FileNotFoundError as e:
        return checks.fail(f"{a.file}: {e}")
    except (ScenarioError, OSError, UnicodeDecodeError) as e:
        return checks.fail(f"{a.file}: {e}")
    from superpacket import emulate as emu

    try:  # the simulator's check of the file first, then the emulator's own
        plan = emu.make_plan(sc, text)
    except emu.Refused as e:
        return checks.fail(f"{a.file}: {e}")
    if not plan.flows:
        return checks.fail(f"{a.file}: traffic: no flow starts within the duration")
    try:
        emu.router_env()
    except emu.Refused as e:
        return checks.fail(f"emulate: {e}")
    if why := emu.unavailable():
        return checks.fail(f"emulate: {why}")
    binary = emu.router_binary()
    if binary is None:
        return checks.fail("emulate: the router superpacket-emu is not built (make install, or set "
                           "SUPERPACKET_EMU to its path)")
    sim = None
    if a.compare:  # the simulator first: it takes a moment, the emulation the whole duration
        from superpacket import api

        try:
            sim = api.run(a.file, progress=False)
        except _core.SimulationError as e:
            print(f"superpacket: {a.file}: {e}", file=sys.stderr)
            return 1
    try:
        res = emu.emulate(plan, binary, scenario_text=text, progress=True)
    except emu.Refused as e:
        return checks.fail(f"emulate: {e}")
    except emu.TestbedError as e:
        print(f"superpacket: emulate: {e}", file=sys.stderr)
        return 1
    except emu.Interrupted as e:
        print(f"superpacket: emulate: interrupted ({e})", file=sys.stderr)
        return 128 + 15
    import polars as pl

    table = None
    if sim is not None:
        from superpacket.emulate.compare import compare

        table = compare(sim, res)
    if a.out:
        try:
            res.write(a.out)
            if sim is not None and table is not None:
                from pathlib import Path

                sim.write(Path(a.out) / "simulated")
                table.write_parquet(Path(a.out) / "compare.parquet")
        except OSError as e:
            return checks.fail(f"--out {a.out}: {e}")

    s = res.summary
    print(f"scenario {s['name']!r}  emulated {s['duration_s']:g} s  flows {s['flows']}  "
          f"goodput {s['tcp_goodput_bps'] / 1e6:.2f} Mb/s  router send lateness mean "
          f"{s['send_lateness_mean_s'] * 1e6:.1f} us, max {s['send_lateness_max_s'] * 1e6:.0f} us")
    with pl.Config(tbl_rows=30, tbl_cols=12, tbl_width_chars=160):
        print(res.flows.select("flow_id", "src", "dst", "cc", "bytes_received", "goodput_bps", "retransmits",
                               "timeouts", "srtt_s"))
        print(res.links.filter(pl.col("arrivals") > 0).select("name", "limit", "arrivals", "drops", "max_pkts",
                                                              "mean_pkts", "utilization"))
        if table is not None:
            print("simulated against emulated (difference = emulated - simulated):")
            print(table.select("what", "name", "metric", "simulated", "emulated", "difference",
                               "relative_difference"))
    if a.out:
        print(f"results written to {a.out}/")
    return 0
