"""The `superpacket` command line.

    superpacket run FILE.toml [--seed N] [--out DIR] [--json] [--timing] [--pcap LINK|all ...]
    superpacket list [--claims]
    superpacket bench [--duration SECONDS] [--json]
    superpacket bench --fast-burstiness [--duration SECONDS] [--txqueuelen N] [--gate on|off] [--json]
    superpacket bench --scenario datacenter [--hosts 16|128|144|1024] [--duration SECONDS] [--warmup SECONDS] [--json]
    superpacket reproduce incast|incast-map|short-long|jumbo|threshold|loss-sensitivity|riops-goodput
                          |riops-web|dcr|dcr-multihop|mbs|lion|fast-burstiness|datatag
                          [--seeds N|A..B|LIST] [--jitter-us US] [--admit-syn] [--quick] [--json]
                          [--regime paper|datacenter]   (incast)
                          [--duration SECONDS]   (fast-burstiness, datatag)
                          [--protocols ltcp,highspeed,bic,htcp] [--q 0.001,0.01]   (dcr, dcr-multihop)
                          [--scheduler ADDRESS | --workers N] [--emit-scenarios DIR]
    superpacket sweep FILE.toml --param PATH=V1,V2 [--seeds 1..N] [--out DIR] [--scheduler ADDRESS]
    superpacket report DIR
    superpacket emulate FILE.toml [--out DIR] [--compare]   (root: real kernel TCP through the project's router)
    superpacket bench --sweep [--runs N] [--workers N]

Bad input (an invalid scenario, a missing file) exits with code 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from superpacket.cli import checks

if TYPE_CHECKING:
    from superpacket.experiments.record import Experiment
from superpacket.cli.bench import cmd_bench

EXIT_BAD_INPUT = checks.EXIT_BAD_INPUT
#: Output closed early (`superpacket list | head -1`): as a tool killed by SIGPIPE.
EXIT_BROKEN_PIPE = 128 + 13
#: Ctrl-C (SIGINT): as a shell reports a command killed by it. The run stops within a
#: fraction of a second (the simulator looks at Python's signals between slices of
#: events, crates/py/src/lib.rs `run_until`) and writes nothing: outputs are written
#: whole or not at all (`Results.write`, sweeps' `commit_run`).
EXIT_INTERRUPTED = 128 + 2
#: A run that does not fit in the process's memory (its limit, `ulimit -v`, or the
#: machine's): one line naming the run's memory estimate and the limit, exit 1 as a run
#: that fails (superpacket.memory).
EXIT_OUT_OF_MEMORY = 1
#: `validate`: a check outside its band.
EXIT_CHECK_FAILED = 1


def write_atomic(path: Path, text: str) -> None:
    """Writes `path` whole or not at all (a temporary file beside it, then a rename)."""
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _json_value(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def cmd_run(a: argparse.Namespace) -> int:
    from superpacket import _core, _toml
    from superpacket._core import ScenarioError

    if (a.pcap or a.pcap_snaplen is not None) and not a.out:
        return checks.fail("--pcap needs --out DIR (the pcap files are written there)")
    if a.pcap_snaplen is not None and not 0 <= a.pcap_snaplen <= checks.MAX_SNAPLEN:
        return checks.fail(f"--pcap-snaplen must be an integer in 0..{checks.MAX_SNAPLEN} (0: whole frames)")
    if a.seed is not None:
        try:
            a.seed = checks.parse_seed(a.seed)  # text: the strict parser sweep and reproduce share
        except checks.SeedError as e:
            return checks.fail(str(e))
    if bad := checks.out_dir(a.out) if a.out else None:
        return checks.fail(bad)
    from superpacket import packaged

    a.file = packaged.resolve(a.file)  # `incast`: the packaged example
    try:
        # a bad scenario is refused before polars loads (half of the command's start-up)
        from superpacket import memory

        text = _toml.read_scenario_file(a.file)
        # under `ulimit -v`: refused before it allocates if it would not fit
        memory.build_within_limit(lambda: _core.validate(text), text, "toml")
        from superpacket import api

        res = api.run(a.file, seed=a.seed, progress=None if not a.json else False,
                      pcap=a.pcap, pcap_snaplen=a.pcap_snaplen)
        a.memory_estimate = res.memory_estimate_bytes  # named if the output runs out of memory
    except FileNotFoundError as e:
        return checks.fail(f"{a.file}: {e} (packaged examples: {', '.join(packaged.examples())})")
    except (ScenarioError, OSError, UnicodeDecodeError) as e:
        return checks.fail(f"{a.file}: {e}")
    except _core.SimulationError as e:  # a panic inside the simulator: a bug, one line
        print(f"superpacket: {a.file}: {e}", file=sys.stderr)
        return 1
    if a.out:
        try:
            res.write(a.out)
        except OSError as e:
            return checks.fail(f"--out {a.out}: {e}")
    elif res.pcap_links:
        print("superpacket: note: [output] pcap traces are written only with --out DIR", file=sys.stderr)
    if a.json:
        flows = [{k: _json_value(v) for k, v in row.items()} for row in res.flows.to_dicts()]
        out: dict[str, Any] = {
            "scenario": res.summary.get("name"),
            "seed": res.summary.get("seed"),
            "summary": res.summary_json(),
            "mean_fct_s": res.summary.get("mean_fct_s"),
            "flows": flows,
            "links": res.links.to_dicts(),
        }
        if a.timing:
            out["wall_s"] = res.wall_s
        print(json.dumps(out, indent=2, sort_keys=True))
        _print_warnings(res.summary)
        return 0
    s = res.summary
    print(f"scenario {s.get('name')!r}  seed {s.get('seed')}  simulated {s.get('sim_time_s'):g} s  "
          f"events {s.get('events')}  conservation {s.get('conservation')}")
    mean = s.get("mean_fct_s")
    print(f"flows {s.get('flows')}  completed {s.get('completed_flows')}  "
          f"mean FCT {'-' if mean is None else f'{mean:.6f} s'}  with a timeout {s.get('flows_with_timeout')}")
    held = f"  segments the NICs refused and the flows kept {s['nic_refusals']}" if s.get("nic_refusals") else ""
    print(f"drops {s.get('drops')}  of which at the senders' own NIC queues {s.get('sender_drops')}{held}"
          "  (every link, host NICs included, has a queue: DropTail of 1000 packets unless the scenario"
          " says otherwise; `limit` below)")
    import polars as pl

    from superpacket.tcp_config import readable_all, tcp_text

    for entry, cfg in readable_all(s.get("tcp_configs") or {}).items():
        print(f"{entry}: {tcp_text(cfg)}")
    with pl.Config(tbl_rows=30, tbl_cols=12, tbl_width_chars=160):
        print(res.flows.select("flow_id", "src", "dst", "cc", "size_bytes", "fct_s", "goodput_bps",
                               "retransmits", "timeouts", "fast_retransmits"))
        shown, hidden = links_to_show(res.flows, res.links, a.all_links)
        print(shown.select("name", "queue", "limit", "limit_unit", "arrivals", "drops", "marks", "max_pkts",
                           "mean_pkts", "utilization"))
    if hidden:
        print(f"{hidden} host link(s) without drops or marks not shown (--all-links shows every link)")
    if a.timing:
        print(f"wall time {res.wall_s:.3f} s")
    if a.out:
        print(f"results written to {a.out}/")
        for name, path in zip(res.pcap_links, res.pcap_files, strict=True):
            print(f"  trace of {name}: {path}")
    _print_warnings(s)
    return 0


def _print_warnings(summary: dict[str, Any]) -> None:
    """The run's warnings (settings that likely do not mean what was meant) on stderr,
    once its output is complete: a command that fails prints its one line only."""
    for w in summary.get("warnings") or []:
        print(f"superpacket: warning: {w}", file=sys.stderr)


def links_to_show(flows: Any, links: Any, all_links: bool) -> tuple[Any, int]:
    """(the links a run's terminal summary lists, how many it leaves out): links that
    carried packets; of those, a host link (one end a flow's source or destination) only
    if it dropped or marked a packet, unless `all_links`. A 4-flow dumbbell lists its
    bottleneck, not 16 access links."""
    import polars as pl

    busy = links.filter(pl.col("arrivals") > 0)
    if all_links:
        return busy, 0
    hosts = set(flows["src"].to_list()) | set(flows["dst"].to_list()) if flows.height else set()
    host_link = pl.col("from").is_in(list(hosts)) | pl.col("to").is_in(list(hosts))
    shown = busy.filter(~host_link | (pl.col("drops") > 0) | (pl.col("marks") > 0))
    return shown, busy.height - shown.height


def cmd_list(a: argparse.Namespace) -> int:
    from superpacket import packaged

    ex = packaged.examples()
    print(f"example scenarios (superpacket run NAME; the files are in {packaged.examples_dir()}):")
    w = max((len(n) for n in ex), default=0) + 2
    for name, p in ex.items():
        print(f"  {name:<{w}}{packaged.description(p)}")
    from superpacket.experiments import EXPERIMENTS

    print("built-in experiments (superpacket reproduce NAME):")
    for name, exp in EXPERIMENTS.items():
        print(textwrap.fill(f"{name}  {exp.summary()}", width=100, initial_indent="  ", subsequent_indent="      ",
                            break_long_words=False, break_on_hyphens=False))
        if a.claims:  # as the record declares them; {name}: a value the run fills in
            print(f"    --quick: {exp.quick.text if exp.quick is not None else 'none'}")
            for c in exp.claims:
                print(f"    claim {c.id}{'' if c.must_hold else ' (not a must-hold)'}: {c.shown()}")
    print("benchmarks:\n  P1  dumbbell of 64 long-lived NewReno flows, 10 Gbps (superpacket bench)")
    import json

    from superpacket import _core

    # every pluggable family, read from the simulator's registries
    for fam in json.loads(_core.families()):
        print(f"{fam['name']} ({fam['field']}):")
        for name, desc in fam["members"]:
            print(textwrap.fill(desc, width=100, initial_indent=f"  {name:<12} ", subsequent_indent=" " * 15))
    print("loss recovery ([tcp] recovery):\n  newreno (RFC 6582), sack (RFC 2018 + RFC 6675)")
    print("send scheduler ([tcp] pacing):\n  off, cc, a rate such as \"10Mbps\"")
    return 0


def _num(x: float) -> str:
    """4 decimals for small values, fewer digits for large ones (bit/s, kB/s)."""
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return f"{x:.4f}" if abs(x) < 1000 else f"{x:.6g}"


#: `reproduce --quick`'s and `--seeds`' help; `_ReproduceHelp` names the experiments
#: each applies to.
QUICK_HELP = "the experiment's small scale (`superpacket list --claims` says what it runs for each)"
SEEDS_HELP = (f"N (seeds 1..N), A..B (inclusive) or a list such as 1,3,5 or 3..5,9, as `sweep --seeds`; at most "
              f"{checks.MAX_EXPERIMENT_SEEDS} (default: the experiment's)")


class _ReproduceHelp(argparse.HelpFormatter):
    """`reproduce --help`: the --quick line names the experiments with a small scale, and
    the --seeds line each experiment's default seeds, read from their records when the help
    is shown (importing every experiment takes seconds, too long for each start of the
    command line)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.help == SEEDS_HELP:
            from superpacket.experiments import EXPERIMENTS
            from superpacket.experiments.record import FALLBACK_DEFAULT_SEEDS

            own = sorted(f"{n} {e.default_seeds}" for n, e in EXPERIMENTS.items()
                         if e.default_seeds != FALLBACK_DEFAULT_SEEDS)
            return SEEDS_HELP.removesuffix("(default: the experiment's)") + (
                f"(default {FALLBACK_DEFAULT_SEEDS} seeds" + (f"; {checks.join(own)}" if own else "")
                + ", see their params)")
        if action.help == QUICK_HELP:
            from superpacket.experiments import EXPERIMENTS

            names = sorted(n for n, e in EXPERIMENTS.items() if e.quick is not None)
            return (f"the experiment's small scale, for {checks.join(names)} (`superpacket list --claims` says "
                    "what it runs for each)")
        return super()._get_help_string(action)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        # an experiment's name whole on one line ("riops-goodput", not "riops-" / "goodput")
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def cmd_reproduce(a: argparse.Namespace) -> int:
    from superpacket.experiments import EXPERIMENTS

    exp = EXPERIMENTS.get(a.name)
    if exp is None:
        return checks.fail(f"unknown experiment {a.name!r}; available: {', '.join(sorted(EXPERIMENTS))}")
    seeds: list[int] | None = None
    if a.seeds is not None:
        # the syntax and parser of `sweep --seeds`: N (1..N), A..B, 1,3,5, 3..5,9
        try:
            seeds = checks.parse_seeds(a.seeds, limit=checks.MAX_EXPERIMENT_SEEDS, what="experiment")
        except checks.SeedError as e:
            return checks.fail(str(e))
    if a.jitter_us is not None and not (math.isfinite(a.jitter_us) and a.jitter_us >= 0):
        return checks.fail(f"--jitter-us must be >= 0 and finite (got {a.jitter_us:g})")
    if a.scheduler is not None and a.workers is not None:  # dask_client would ignore --workers
        return checks.fail(f"--workers {a.workers}: applies to a local cluster; with --scheduler the cluster's own "
                     "workers run")
    bad = (checks.workers(a.workers) or checks.scheduler(a.scheduler)
           or (checks.duration_s(a.duration) if a.duration is not None else None)
           or (checks.out_dir(a.out) if a.out else None))
    if bad:
        return checks.fail(bad)
    # the experiment's own default number of seeds (10, our specification, unless it says
    # otherwise), or its small scale's (its record's `quick`)
    if seeds is None and a.quick and exp.quick is not None and exp.quick.seeds is not None:
        seeds = list(range(1, exp.quick.seeds + 1))
    kw: dict[str, Any] = {} if seeds is None else {"seeds": seeds}
    # an option the experiment does not use is refused, not silently ignored (its record's options)
    options = exp.options
    given = (("protocols", a.protocols), ("qs", a.q), ("regime", a.regime), ("duration_s", a.duration),
             ("jitter_us", a.jitter_us), ("admit_syn", a.admit_syn or None), ("quick", a.quick or None))
    for opt, value in given:
        if value is None:
            continue
        if opt not in options:
            flag = {"qs": "--q", "duration_s": "--duration"}.get(opt, f"--{opt.replace('_', '-')}")
            users = sorted(n for n, e in EXPERIMENTS.items() if opt in e.options)
            return checks.fail(f"{flag} applies to {checks.join(users)} only")
        kw[opt] = value
    if exp.check_options is not None:
        accepted = inspect.signature(exp.check_options).parameters
        try:
            exp.check_options(**{k: v for k, v in kw.items() if k in accepted})
        except ValueError as e:
            return checks.fail(str(e))
    if a.emit_scenarios is not None:
        return _emit_scenarios(a, exp, kw)
    # some experiments (dcr: 122 runs of 100 s per seed) run on a local cluster by default;
    # --workers 0 runs them one after another in this process
    parallel = a.scheduler or a.workers or (a.workers is None and exp.parallel_by_default)
    from superpacket._core import ScenarioError

    t0 = time.monotonic()
    try:
        if parallel:
            from superpacket.cluster import dask_client

            try:
                with dask_client(a.scheduler, a.workers or None) as client:
                    r = exp.run(client=client, **kw)
            except OSError as e:  # e.g. no scheduler at --scheduler
                return checks.fail(f"--scheduler {a.scheduler}: {e}" if a.scheduler else str(e))
        else:
            r = exp.run(**kw)
    except ScenarioError as e:  # an option the schema refuses (e.g. --duration past a monitor's reach)
        return checks.fail(f"reproduce {a.name}: {' '.join(str(e).split())}")
    from superpacket.reports import verdicts

    # how far this run is from the experiment's full scale, and how long it took: in
    # summary.json (the report's first line), not in --json (the experiment's result as the
    # Python API returns it, the same for the same seeds)
    sc = verdicts.scale(r, exp, quick=bool(a.quick), wall_s=round(time.monotonic() - t0, 3))
    if a.out:
        out = Path(a.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomic(out / "summary.json", json.dumps({**r, "scale": sc}, indent=2, sort_keys=True) + "\n")
        except OSError as e:
            return checks.fail(f"--out {a.out}: {e}")
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return 0
    from superpacket.experiments.common import interval_kind, seed_text

    print(f"experiment {r['experiment']}  seeds {seed_text(r.get('seed_list') or range(1, r['seeds'] + 1))}")
    print(f"scale: {verdicts.scale_text(sc)}")
    n = int(r["seeds"])
    w = max([14] + [len(v) + 2 for v in r["variants"]])  # dcr's names run to 30 characters
    ours = f"ours (mean [{interval_kind(n)}], n = {n})"
    print(f"{'variant':<{w}}{'metric':<22}{ours:<34}{'paper':>10}")
    for v, ms in r["variants"].items():
        for m in [k for k in ms if f"{k}_ci95" in ms]:
            lo, hi = ms[f"{m}_ci95"]
            paper = r["paper"].get(v, {}).get(m)
            print(f"{v:<{w}}{m:<22}{_num(ms[m]):<10} [{_num(lo)}, {_num(hi)}]{'':<9}"
                  f"{'' if paper is None else _num(paper):>10}")
    if exp.regimes:
        _print_regimes(r)
    for c in r["claims"]:
        how = verdicts.judged(c, verdicts.number(exp, c))
        mark = " (indicative)" if sc["indicative"] else ""
        print(f"claim: {c['claim']}: {'HOLDS' if c['holds'] else 'DOES NOT HOLD'}{mark}{f' ({how})' if how else ''}")
    if sc["indicative"] and r["claims"]:
        why = "--quick" if sc["quick"] else f"{sc['seeds']} of the default {sc['default_seeds']} seeds"
        print(f"verdicts are indicative: reduced scale ({why}); run without --quick and with the default "
              "seeds for the full-scale verdicts")
    return 0


def _emit_scenarios(a: argparse.Namespace, exp: Experiment, kw: dict[str, Any]) -> int:
    """`reproduce NAME --emit-scenarios DIR`: the experiment's scenarios as TOML files in
    DIR (one per variant, or per distinct scenario of a variant), listed; nothing runs."""
    import shlex

    from superpacket._core import ScenarioError
    from superpacket.experiments import emit

    given = [f for f, v in (("--out", a.out), ("--json", a.json or None), ("--scheduler", a.scheduler),
                            ("--workers", a.workers)) if v is not None]
    if given:
        return checks.fail(f"--emit-scenarios writes the scenarios and runs nothing: {checks.join(given)} "
                     f"{'does' if len(given) == 1 else 'do'} not apply")
    if bad := checks.out_dir(a.emit_scenarios, "--emit-scenarios"):
        return checks.fail(bad)
    try:
        runs = emit.planned_runs(exp, **kw)
        files = emit.write_scenarios(runs, Path(a.emit_scenarios), a.name,
                                     shlex.join(["superpacket", *a.argv]))
    except ScenarioError as e:
        return checks.fail(f"reproduce {a.name}: {' '.join(str(e).split())}")
    except OSError as e:  # FileExistsError included: an emitted file is never replaced
        return checks.fail(f"--emit-scenarios {a.emit_scenarios}: {e}")
    seeds = sorted({s for f in files for s in f.seeds})
    from superpacket.experiments.common import seed_text

    print(f"{len(files)} scenario(s) of {a.name} ({len({f.variant for f in files})} variant(s), seeds "
          f"{seed_text(seeds)}) written to {a.emit_scenarios}; nothing was run:")
    for f in files:
        print(f"  {f.path}  variant {f.variant}, seed{'s' if len(f.seeds) > 1 else ''} {seed_text(sorted(f.seeds))}")
    print("run one with `superpacket run FILE --out DIR`; its `seed` field is the first seed it stands for")
    return 0


def _print_regimes(r: dict[str, Any]) -> None:
    """incast: why the main regime came out as it did, then the other regime beside it."""
    from superpacket.experiments.common import interval_kind

    print(f"regime {r['regime']} (sender links {r['access_link']}; R->D {r['bottleneck_link']}): {r['explanation']}")
    for name, b in r["regimes"].items():
        n = len(next(iter(b["variants"].values()))["mean_fct_s_per_seed"])
        print(f"regime {name} (sender links {b['access_link']}; R->D {b['bottleneck_link']}; mean "
              f"[{interval_kind(n)}] over n = {n} seeds):")
        for v, ms in b["variants"].items():
            lo, hi = ms["mean_fct_s_ci95"]
            r1 = f"  admitted in round 1 {ms['sp_round1_admitted']:.1f}" if "sp_round1_admitted" in ms else ""
            print(f"  {v:<12} mean FCT {_num(ms['mean_fct_s'])} [{_num(lo)}, {_num(hi)}]  flows with a timeout "
                  f"{ms['flows_with_timeout']:.1f}{r1}")
        print(f"  {b['explanation']}")


class _Version(argparse.Action):
    """`--version`: the package's version (superpacket.__version__), looked up only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        import superpacket

        print(f"superpacket {superpacket.__version__}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (`superpacket bench: error: argument --gate:
    invalid choice ...`), exit 2, as every other refusal; `-h` still shows the usage.
    Subcommands' parsers are of this class too (add_subparsers takes the parent's)."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {' '.join(message.split())}\n")


def cmd_validate(a: argparse.Namespace) -> int:
    from superpacket import validation

    if a.out is not None and (bad := checks.out_dir(a.out)):
        return checks.fail(bad)
    try:
        df = validation.validate(quick=a.quick, only=a.only, out=a.out)
    except validation.ValidationError as e:
        return checks.fail(str(e))
    validation.print_table(df)
    if a.out is not None:
        print(f"results written to {a.out}/ (results.parquet, results.json, report.md, figures)")
    return 0 if df["holds"].all() else EXIT_CHECK_FAILED


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="superpacket", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action=_Version, help="print the version and exit")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run a scenario file")
    r.add_argument("file", metavar="FILE|EXAMPLE",
                   help="a scenario file, or the name of a packaged example (`superpacket list` names them)")
    r.add_argument("--seed", default=None, metavar="N", help="the run's seed, 0..2^64-1 (ASCII digits)")
    r.add_argument("--out", default=None, help="write Parquet tables and summary.json here")
    r.add_argument("--json", action="store_true", help="print a machine-readable summary")
    r.add_argument("--timing", action="store_true", help="include wall-clock time")
    r.add_argument("--all-links", action="store_true",
                   help="list every link that carried packets (default: host links only where they dropped or "
                        "marked a packet)")
    r.add_argument("--pcap", action="append", default=None, metavar="LINK|all",
                   help="trace a link (\"R->d\" or \"R-to-d\"; repeatable or comma-separated; \"all\") "
                        "to DIR/R-to-d.pcap (needs --out)")
    r.add_argument("--pcap-snaplen", type=int, default=None, metavar="BYTES",
                   help="bytes kept of each traced frame (default: whole frames)")
    r.set_defaults(fn=cmd_run)
    ls = sub.add_parser("list", help="list example scenarios and built-in parts")
    ls.add_argument("--claims", action="store_true",
                    help="also each built-in experiment's claims (id and text; {NAME} in a text stands for a value "
                         "the run fills in) and what its --quick runs")
    ls.set_defaults(fn=cmd_list)
    b = sub.add_parser("bench", help="run benchmark scenario P1")
    b.add_argument("--duration", type=float, default=None,
                   help="simulated seconds (default 5; --scenario datacenter: 0.1; riops-web: 600)")
    b.add_argument("--hosts", type=int, default=None, help="--scenario datacenter: 16, 128, 144 or 1024 hosts (144)")
    b.add_argument("--warmup", type=float, default=None, help="--scenario datacenter: warm-up seconds (0.02)")
    b.add_argument("--json", action="store_true", help="print the measurements as JSON instead of the table")
    b.add_argument("--fast-burstiness", action="store_true",
                   help="the 622 Mb/s x 360 ms FAST TCP run of Wei, Hegde and Low (PFLDnet 2005) instead of P1 (--duration 300 for the full run)")
    b.add_argument("--txqueuelen", type=int, default=None, help="--fast-burstiness: the host's NIC queue (10000)")
    b.add_argument("--gate", choices=("on", "off"), default=None,
                   help="--fast-burstiness: burstiness control on or off (off)")
    b.set_defaults(fn=cmd_bench)
    from superpacket.cli import sweep

    sweep.add_bench_args(b)
    sweep.add_parsers(sub)
    from superpacket.cli import emulate

    emulate.add_parser(sub)
    v = sub.add_parser("validate", help="run the validation suite: the simulator against theory, case by case "
                                        "(a table of reference, ours, error, band and verdict)")
    v.add_argument("--quick", action="store_true",
                   help="shorter runs (statistical bands widen with them; a few seconds in all)")
    v.add_argument("--only", default=None, metavar="NAMES",
                   help="comma-separated case names (default: every case; the table's first column names them)")
    v.add_argument("--out", default=None, metavar="DIR",
                   help="also write results.parquet, results.json, report.md and the figures here")
    v.set_defaults(fn=cmd_validate)
    rp = sub.add_parser("reproduce", help="run a built-in experiment: a paper's experiment, judged against its claims (`superpacket list` names them)",
                        formatter_class=_ReproduceHelp)
    rp.add_argument("name", help="the experiment (`superpacket list` names them)")
    rp.add_argument("--seeds", default=None, metavar="N|A..B|LIST",
                    help=SEEDS_HELP)
    rp.add_argument("--jitter-us", type=float, default=None,
                    help="uniform start offsets per flow (incast, incast-map; default 100)")
    rp.add_argument("--regime", default=None, metavar="NAME",
                    help="incast: the regime reported under `variants` (paper, the default, or datacenter; "
                         "both are run)")
    rp.add_argument("--duration", type=float, default=None, metavar="SECONDS",
                    help="fast-burstiness, datatag: simulated seconds per run (default 300 and 60)")
    rp.add_argument("--admit-syn", action="store_true", help="the super-packet router always admits SYNs")
    rp.add_argument("--json", action="store_true",
                    help="print the summary (variants, claims with their verdicts, parameters) as JSON")
    rp.add_argument("--out", default=None, help="write summary.json here")
    rp.add_argument("--quick", action="store_true",
                    help=QUICK_HELP)
    rp.add_argument("--scheduler", default=None, help="run the seeds on this Dask scheduler")
    rp.add_argument("--workers", type=int, default=None,
                    help="run the seeds on a local Dask cluster of N workers (0: one after another here; "
                         "dcr and dcr-multihop use one worker per core unless told)")
    rp.add_argument("--protocols", default=None, metavar="LIST",
                    help="dcr, dcr-multihop: congestion controls to run (default ltcp,highspeed,bic,htcp)")
    rp.add_argument("--q", default=None, metavar="LIST",
                    help="dcr: reordering probabilities beside q = 0 (default 0.001,0.01,0.05,0.1); "
                         "dcr-multihop: R3's (default 0.01)")
    rp.add_argument("--emit-scenarios", default=None, metavar="DIR",
                    help="write the scenario of each variant (one per distinct scenario where a variant's "
                         "differs between seeds) as a TOML file in DIR, to start your own from, and exit "
                         "without running; the other options shape the scenarios as they shape the runs")
    rp.set_defaults(fn=cmd_reproduce)
    a = p.parse_args(argv)
    a.argv = list(sys.argv[1:] if argv is None else argv)
    from superpacket import progress

    # long commands: progress even into a log or a pipe, for this command only
    progress.lines_when_piped(a.cmd in ("run", "sweep", "reproduce", "validate"))
    try:
        rc: int = a.fn(a)
        sys.stdout.flush()
    except BrokenPipeError:  # `superpacket ... | head`: the reader has what it wanted
        # no traceback, and no second error when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback, nothing half-written
        print(f"superpacket: {a.cmd}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError as e:  # one line naming the run's memory estimate and the process's limit
        from superpacket import memory

        what = f"{a.cmd} {a.file}" if a.cmd == "run" else a.cmd
        print(f"superpacket: {what}: {memory.explain(e, getattr(a, 'memory_estimate', None))}", file=sys.stderr)
        return EXIT_OUT_OF_MEMORY
    finally:
        progress.lines_when_piped(False)
    return rc

