"""The Python API: `run(scenario, seed=...)` -> `Results` with polars DataFrames.

Packet traces: `run(..., pcap=["R->d"], out="out/")` (or `[output] pcap` in the scenario)
records every packet the named links transmit; `Results.write(out)` writes one pcap file
per traced link next to the tables (crates/sim/src/trace/mod.rs for the headers).

A scenario is a path to a TOML file, a TOML string, or a dict with the same fields
(the schema lives once, in Rust: crates/sim/src/scenario/; every field, default and limit
in docs/schema.md, generated from it). Invalid scenarios raise `ScenarioError` naming the
field.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from superpacket import _core, memory
from superpacket._toml import check_values, read_scenario_file, scenario_json  # noqa: F401 - re-exported
from superpacket.seeds import check_seed


@dataclass
class Results:
    """One run's data: per-flow and per-link tables, the sampled queue series, a summary."""

    flows: pl.DataFrame
    links: pl.DataFrame
    queue_series: pl.DataFrame
    summary: dict[str, Any]
    queue_counters: pl.DataFrame = field(default_factory=pl.DataFrame)
    flow_series: pl.DataFrame = field(default_factory=pl.DataFrame)
    #: One row per non-TCP source (cbr, onoff, mbs_probe): packets sent, delivered, dropped.
    sources: pl.DataFrame = field(default_factory=pl.DataFrame)
    #: One row per train an `mbs_probe` sent (MBS search and FAC rounds).
    probe_trains: pl.DataFrame = field(default_factory=pl.DataFrame)
    #: The high-frequency monitor (`[output] monitor`): one link's queue, its largest
    #: value since the previous row, and the queue the windows alone predict.
    monitor: pl.DataFrame = field(default_factory=pl.DataFrame)
    scenario_text: str = ""
    wall_s: float | None = field(default=None, compare=False)
    #: Links traced to pcap ("R->d"); their files are written by `write`.
    pcap_links: list[str] = field(default_factory=list)
    #: The pcap files the last `write` / `write_pcaps` wrote.
    pcap_files: list[Path] = field(default_factory=list, compare=False)
    #: The simulator's estimate of the run's memory (bytes), made before it started.
    memory_estimate_bytes: float | None = field(default=None, compare=False)
    #: The finished simulation holding the traces (only when links are traced).
    _traces: Any = field(default=None, repr=False, compare=False)

    def write_pcaps(self, out: str | Path) -> list[Path]:
        """Writes one pcap file per traced link into `out` (e.g. `R-to-d.pcap`)."""
        if self._traces is not None:
            self.pcap_files = [Path(p) for p in self._traces.write_pcaps(Path(out))]
        return self.pcap_files

    def summary_json(self) -> dict[str, Any]:
        """The summary as summary.json (and `run --json`) hold it: `summary` made readable
        (TCP configurations as tables, `sim_time_s` to the clock's nanosecond) and the
        run's rates from its tables (`rates`). `summary` itself, and a sweep's
        summary.parquet, keep the simulator's keys and values."""
        from superpacket.tcp_config import readable_summary

        return {**readable_summary(self.summary), **rates(self.flows, self.links, self.sources, self.summary)}

    def write(self, out: str | Path) -> Path:
        """Writes flows/links/queue_series as Parquet, summary.json, scenario.toml and
        the pcap files of traced links.

        Whole or not at all: the files go to a hidden folder beside `out`, then into
        place by renames (one rename of the folder when `out` does not exist yet), so an
        error or Ctrl-C midway leaves no partial file."""
        d = Path(out)
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = d.parent / f".{d.name}.partial-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            self._write_into(tmp)
            try:
                os.rename(tmp, d)  # `out` absent (or an empty folder): one rename
            except OSError:
                d.mkdir(parents=True, exist_ok=True)
                for f in sorted(tmp.iterdir()):
                    os.replace(f, d / f.name)
            self.pcap_files = [d / p.name for p in self.pcap_files]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return d

    def _write_into(self, d: Path) -> None:
        d.mkdir()
        self.flows.write_parquet(d / "flows.parquet")
        self.links.write_parquet(d / "links.parquet")
        self.queue_series.write_parquet(d / "queue_series.parquet")
        self.queue_counters.write_parquet(d / "queue_counters.parquet")
        self.flow_series.write_parquet(d / "flow_series.parquet")
        for name in ("sources", "probe_trains", "monitor"):
            table = getattr(self, name)
            if table.width:
                table.write_parquet(d / f"{name}.parquet")
        (d / "summary.json").write_text(json.dumps(self.summary_json(), indent=2, sort_keys=True) + "\n")
        if self.scenario_text:
            (d / "scenario.toml").write_text(self.scenario_text)
        self.write_pcaps(d)


def rates(flows: pl.DataFrame, links: pl.DataFrame, sources: pl.DataFrame, summary: dict[str, Any]) -> dict[str, Any]:
    """The summary's throughput and utilisation keys (superpacket.outputs.SUMMARY): TCP
    goodput and non-TCP throughput over the whole run in bit/s, and the links' utilisation
    (each link that carried a packet, and the busiest one)."""
    t = summary.get("sim_time_s")

    def per_s(nbytes: int) -> float | None:
        return nbytes * 8 / t if isinstance(t, (int, float)) and t > 0 else None

    received = int(flows["bytes_received"].sum()) if flows.height else 0
    delivered = int(sources["bytes_delivered"].sum()) if sources.height else 0
    carried = links.filter(pl.col("arrivals") > 0).sort("link_id") if links.height else links
    util = {r["name"]: r["utilization"] for r in carried.select("name", "utilization").iter_rows(named=True)} \
        if carried.height else {}
    busiest = max(util, key=lambda n: util[n]) if util else None  # the first of equals, by link_id
    return {
        "tcp_goodput_bps": per_s(received),
        "sources_throughput_bps": per_s(delivered),
        "link_utilization": util,
        "busiest_link": busiest,
        "busiest_link_utilization": None if busiest is None else util[busiest],
    }


def load_scenario(scenario: str | Path | dict[str, Any]) -> tuple[str, str]:
    """Returns (text, format) for a path, a TOML string or a dict (checked by
    `check_values`: ScenarioError naming the field)."""
    if isinstance(scenario, dict):
        return scenario_json(scenario), "json"
    if isinstance(scenario, Path) or (isinstance(scenario, str) and "\n" not in scenario):
        return read_scenario_file(scenario), "toml"
    return str(scenario), "toml"


MAX_SNAPLEN = 2**32 - 1  # the pcap header's field


def _column(name: str, c: tuple[Any, ...]) -> pl.Series:
    """One column from `_core`'s buffers (crates/py/src/lib.rs `table`): integers as
    Int64, floats as Float64 (nulls where the run has no value), strings, booleans."""
    import numpy as np

    kind = c[0]
    if kind == "u64":
        # the counters stay far below 2^63: the same bits read as Int64, without a copy
        return pl.Series(name, np.frombuffer(c[1], dtype="<i8"), dtype=pl.Int64)
    if kind == "f64":
        return pl.Series(name, np.frombuffer(c[1], dtype="<f8"), dtype=pl.Float64)
    if kind == "optf64":
        vals = pl.Series(name, np.frombuffer(c[1], dtype="<f8"), dtype=pl.Float64)
        missing = np.flatnonzero(np.frombuffer(c[2], dtype=np.uint8) == 0)
        return vals.scatter(missing, None) if len(missing) else vals
    if kind == "str":
        return pl.Series(name, c[1], dtype=pl.String).gather(np.frombuffer(c[2], dtype="<u4").astype(np.int64))
    if kind == "bool":
        return pl.Series(name, np.frombuffer(c[1], dtype=np.uint8).astype(bool), dtype=pl.Boolean)
    raise ValueError(f"column {name!r}: unknown kind {kind!r}")  # pragma: no cover - a bug in _core


def _frame(cols: dict[str, Any]) -> pl.DataFrame:
    """A table from `_core` (crates/py/src/lib.rs `table`): lists (small tables) or
    buffers, the same DataFrame either way."""
    if all(c[0] == "list" for c in cols.values()):
        return pl.DataFrame({n: c[2] for n, c in cols.items()},
                            schema={n: _DTYPE[c[1]] for n, c in cols.items()}, strict=False)
    # columns popped one by one: each buffer can go once its Series exists
    return pl.DataFrame([_column(n, cols.pop(n)) for n in list(cols)])


_DTYPE = {"u64": pl.Int64, "f64": pl.Float64, "optf64": pl.Float64, "str": pl.String, "bool": pl.Boolean}


def run(
    scenario: str | Path | dict[str, Any],
    seed: int | None = None,
    progress: bool | None = None,
    pcap: str | list[str] | None = None,
    pcap_snaplen: int | None = None,
    out: str | Path | None = None,
) -> Results:
    """Runs a scenario and returns its results.

    `seed` overrides the scenario's seed (default 1). `progress`: show a progress bar
    (None = only when stderr is a terminal and the run takes more than a few seconds).
    `pcap`: links to trace ("R->d", "R-to-d", "all"; a list or a comma-separated string),
    added to the scenario's `[output] pcap`; `pcap_snaplen`: bytes kept per frame (0 =
    whole frames). `out`: write the results and traces there (`Results.write`).
    """
    if seed is not None:
        seed = check_seed(seed)  # a SeedError (ValueError) naming `seed`
    if pcap_snaplen is not None and not (isinstance(pcap_snaplen, int) and 0 <= pcap_snaplen <= MAX_SNAPLEN):
        raise ValueError(f"pcap_snaplen: must be an integer in 0..{MAX_SNAPLEN} (got {pcap_snaplen!r})")
    text, fmt = load_scenario(scenario)
    # under `ulimit -v`: refused before it allocates if it would not fit
    sim = memory.build_within_limit(lambda: _core.Simulation(text, fmt, seed), text, fmt)
    names = pcap_names(pcap)
    if names or pcap_snaplen is not None:
        sim.trace(names, pcap_snaplen)
    estimate = sim.memory_estimate
    try:
        t0 = time.perf_counter()
        _run_with_progress(sim, progress)
        wall = time.perf_counter() - t0
        box = [sim]
        del sim  # _results_of holds the only reference: it frees the simulator when it can
        res = _results_of(box, text, fmt, wall)
    except memory.OutOfMemory:
        raise
    except MemoryError:
        raise memory.out_of_memory(estimate) from None
    res.memory_estimate_bytes = estimate
    if out is not None:
        res.write(out)
    return res


def pcap_names(pcap: str | list[str] | None) -> list[str]:
    """Link names from a list and/or comma-separated strings ("R->d,s0->R")."""
    if pcap is None:
        return []
    from superpacket._toml import _check_text

    items = [pcap] if isinstance(pcap, str) else list(pcap)
    names = [n.strip() for item in items for n in item.split(",") if n.strip()]
    for n in names:  # e.g. undecodable bytes on the command line: ScenarioError naming pcap
        _check_text(n, f"pcap {n!r:.40}")
    return names


def _run_with_progress(sim: _core.Simulation, progress: bool | None) -> None:
    """Runs in slices of simulated time; progress (superpacket.progress: a bar, or plain
    lines off a terminal under the command line) appears once a run passes 3 s of wall time."""
    from superpacket.progress import Progress, choose

    total = sim.duration_s
    mode = choose(progress)
    steps = 100
    bar = None
    t0 = time.perf_counter()
    try:
        for k in range(1, steps + 1):
            sim.run_until(total * k / steps)
            if mode and bar is None and time.perf_counter() - t0 > 3.0:
                bar = Progress(steps, "simulating", unit="%", initial=0, progress=progress)
                bar.t0 -= time.perf_counter() - t0  # the estimate counts the time already spent
                bar.update(k, f"{total * k / steps:g} of {total:g} simulated s")
            elif bar is not None:
                bar.update(1, f"{total * k / steps:g} of {total:g} simulated s")
    finally:
        if bar is not None:
            bar.close()


def _results_of(box: list[_core.Simulation], text: str, fmt: str, wall: float) -> Results:
    """The results of the finished simulation in `box` (its only reference, so that it
    can be freed before the DataFrames are built: a 4000 s riops-web run's 1.66 M flows
    take 146 MB of rows in it and 341 MB as a DataFrame)."""
    sim = box[0]
    raw = sim.results()  # small tables as lists, big ones as buffers (the same frames)
    summary = json.loads(raw.pop("summary_json"))
    traced = sim.traced_links
    # the simulator (its finished flows' rows, ~88 B each) is freed before the frames are
    # built unless its pcap traces are still to be written
    traces = sim if traced else None
    del sim
    box.clear()

    def frame(name: str) -> pl.DataFrame:
        # each buffer is dropped once its frame exists, so a big run's table is held
        # about once while the frames are built (docs/benchmarks.md: memory of an open-loop workload)
        return _frame(raw.pop(name)) if name in raw else pl.DataFrame()

    res = Results(
        flows=frame("flows"),
        links=frame("links"),
        queue_series=frame("queue_series"),
        queue_counters=frame("queue_counters"),
        flow_series=frame("flow_series"),
        # tables of builds with non-TCP traffic; empty frames otherwise
        sources=frame("sources"),
        probe_trains=frame("probe_trains"),
        monitor=frame("monitor"),
        summary=summary,
        scenario_text=text if fmt == "toml" else "",
        wall_s=wall,
        pcap_links=traced,
        _traces=traces,
    )
    return res
