"""Every output defined: each column of each table and each summary key a run writes is
defined in `superpacket.outputs` (the source of docs/reference/outputs.md), and each one
defined there is written by some run.

The runs: every example in examples/ at a short duration with flow and queue series on,
plus one scenario with the non-TCP sources, an MBS probe and the monitor. The columns are
read from what a run gives (`Results`) and from the files `superpacket run --out`
writes, not from the module, so a column added to or dropped from the simulator, or an
entry added to or dropped from the module, fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
import superpacket
from superpacket import outputs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))

# one dumbbell with every non-TCP kind that has rows of its own, a probe and the monitor
EXTRA = {
    "name": "outputs-extra",
    "duration": "0.5s",
    "topology": {"kind": "dumbbell", "pairs": 3, "access": {"rate": "1Gbps", "delay": "1ms"},
                 "bottleneck": {"rate": "100Mbps", "delay": "5ms",
                                "queue": {"kind": "droptail", "limit": 50}}},
    "traffic": [
        {"kind": "bulk", "from": "s0", "to": "d0"},
        {"kind": "cbr", "from": "s1", "to": "d1", "rate": "10Mbps"},
        {"kind": "mbs_probe", "from": "s2", "to": "d2", "max_train": 64},
    ],
    "output": {"sample_flows": "10ms", "sample_queues": ["R1->R2"], "sample_interval": "10ms",
               "monitor": {"link": "R1->R2", "interval": "1ms"}},
}


def _short(path: Path) -> dict:
    """The example with at most 1 s simulated and every series on."""
    sc = tomllib.loads(path.read_text())
    out = sc.setdefault("output", {})
    out["sample_flows"] = "10ms"
    out["sample_queues"] = ["all"]
    out["sample_interval"] = "10ms"
    dur = sc.get("duration", "1s")
    if not (dur.endswith(("ms", "us"))) and float(dur.rstrip("s")) > 1:
        sc["duration"] = "1s"
    return sc


@pytest.fixture(scope="module")
def runs() -> dict[str, superpacket.Results]:
    res = {p.stem: superpacket.run(_short(p), seed=1, progress=False) for p in EXAMPLES}
    res["extra"] = superpacket.run(EXTRA, seed=1, progress=False)
    # a setting that warns (`summary.warnings`): a RED max_th above its queue's limit
    warned = {**EXTRA, "name": "outputs-warned", "traffic": EXTRA["traffic"][:1], "output": {}}
    warned["topology"] = {**EXTRA["topology"], "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": {
        "kind": "red", "limit": 50, "min_th": 10, "max_th": 60}}}
    res["warned"] = superpacket.run(warned, seed=1, progress=False)
    return res


def test_examples_exist() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("t", outputs.TABLES, ids=lambda t: t.name)
def test_every_column_written_is_defined_and_every_defined_one_written(runs, t) -> None:
    documented = [c.name for c in t.columns]
    assert len(set(documented)) == len(documented), f"{t.name}: a column defined twice"
    seen: set[str] = set()
    for name, res in runs.items():
        frame: pl.DataFrame = getattr(res, t.name)
        if frame.width == 0:
            continue  # the table is not produced by this run (monitor without [output] monitor)
        cols = frame.columns
        undefined = sorted(set(cols) - set(documented))
        assert not undefined, f"{name}: {t.name} columns without a definition in superpacket.outputs: {undefined}"
        missing = sorted(set(documented) - set(cols))
        assert not missing, f"{name}: {t.name} lacks defined columns {missing}"
        seen.update(cols)
    assert seen == set(documented), f"{t.name}: no run wrote it"


def test_every_table_has_rows_in_some_run(runs) -> None:
    # a definition checked only against empty tables would check little
    for t in outputs.TABLES:
        assert any(getattr(r, t.name).height > 0 for r in runs.values()), t.name


def test_summary_json_rates_are_defined_and_each_written(runs) -> None:
    rates = [o.name for o in outputs.SUMMARY_RATES]
    assert not set(rates) & {o.name for o in outputs.SUMMARY}, "a rate shadows a simulator key"
    for name, res in runs.items():
        assert set(res.summary_json()) == set(res.summary) | set(rates), name


def test_every_summary_key_written_is_defined_and_every_defined_one_written(runs) -> None:
    documented = {o.name for o in outputs.SUMMARY}
    seen: set[str] = set()
    for name, res in runs.items():
        undefined = sorted(set(res.summary) - documented)
        assert not undefined, f"{name}: summary keys without a definition: {undefined}"
        seen.update(res.summary)
    assert seen == documented, f"defined but never written: {sorted(documented - seen)}"
    probe_keys = {o.name for o in outputs.PROBE_KEYS}
    probes = runs["extra"].summary["probes"]
    assert probes and all(set(p) == probe_keys for p in probes), [sorted(p) for p in probes]


def test_cli_out_files_match_the_definitions(tmp_path: Path) -> None:
    """`superpacket run --out` writes each table as Parquet and summary.json: the same names."""
    sc = tmp_path / "extra.toml"
    # the extra scenario as TOML, by hand (inline tables)
    sc.write_text(
        'name = "outputs-extra"\nduration = "0.5s"\n'
        '[topology]\nkind = "dumbbell"\npairs = 3\naccess = { rate = "1Gbps", delay = "1ms" }\n'
        'bottleneck = { rate = "100Mbps", delay = "5ms", queue = { kind = "droptail", limit = 50 } }\n'
        '[[traffic]]\nkind = "bulk"\nfrom = "s0"\nto = "d0"\n'
        '[[traffic]]\nkind = "cbr"\nfrom = "s1"\nto = "d1"\nrate = "10Mbps"\n'
        '[[traffic]]\nkind = "mbs_probe"\nfrom = "s2"\nto = "d2"\nmax_train = 64\n'
        '[output]\nsample_flows = "10ms"\nsample_queues = ["R1->R2"]\nsample_interval = "10ms"\n'
        'monitor = { link = "R1->R2", interval = "1ms" }\n')
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "superpacket.cli", "run", str(sc), "--out", str(out)],
                   check=True, capture_output=True)
    written = {p.stem for p in out.glob("*.parquet")}
    assert written == {t.name for t in outputs.TABLES}
    for t in outputs.TABLES:
        assert pl.read_parquet(out / f"{t.name}.parquet").columns == [c.name for c in t.columns], t.name
    summary = json.loads((out / "summary.json").read_text())
    rates = {o.name for o in outputs.SUMMARY_RATES}
    assert set(summary) <= {o.name for o in outputs.SUMMARY} | rates
    assert rates <= set(summary), "summary.json lacks defined rates"


def test_goodput_definition_against_the_flow_table(runs) -> None:
    """The definition of goodput_bps (bytes x 8 over start to end, or to the run's end)
    recomputed from the other columns of the table."""
    for name, res in runs.items():
        f = res.flows
        if f.height == 0:
            continue
        end = f["end_s"].fill_null(res.summary["sim_time_s"])
        dt = end - f["start_s"]
        expect = (f["bytes_received"] * 8 / dt).fill_nan(0.0)
        got = f["goodput_bps"]
        ok = ((got - expect).abs() <= 1e-6 * expect.abs() + 1e-9) | (dt <= 0)
        assert ok.all(), name


def test_generated_page_is_current() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_docs

    page = ROOT / "docs/reference/outputs.md"
    assert page.read_text() == gen_docs.render("outputs"), "run: python scripts/gen_docs.py"


def test_a_sweeps_files_match_the_definitions(tmp_path: Path) -> None:
    """A sweep's run folders hold the tables defined here (with their columns) and a summary
    whose keys are defined; load_sweep adds the parameter and seed columns in front."""
    out = tmp_path / "sweep"
    superpacket.sweep(EXTRA, params={"topology.bottleneck.queue.limit": [20, 50]}, seeds=[1], out=out,
                      workers=0, progress=False)
    defined = {t.name: [c.name for c in t.columns] for t in outputs.TABLES}
    runs = sorted(out.glob("*/seed=1"))
    assert len(runs) == 2
    for run in runs:
        tables = {p.stem for p in run.glob("*.parquet")} - {"summary"}
        assert tables and tables <= set(defined), tables
        for name in tables:
            assert pl.read_parquet(run / f"{name}.parquet").columns == defined[name], name
        keys = set(json.loads((run / "summary.json").read_text()))
        rates = {o.name for o in outputs.SUMMARY_RATES}
        assert rates <= keys
        assert keys - rates <= {o.name for o in outputs.SUMMARY}
        # summary.parquet: the simulator's keys, without summary.json's rates
        assert set(pl.read_parquet(run / "summary.parquet").columns) == keys - rates
    assert (out / "sweep.json").exists()
    documented_files = {o.name for o in outputs.SWEEP_FILES}
    assert {"sweep.json", "failures.jsonl"} <= documented_files
    data = superpacket.load_sweep(out)
    assert data.params == ["topology.bottleneck.queue.limit"]
    for name in ("flows", "links", "flow_series"):
        assert getattr(data, name).columns == [*data.params, "seed", *defined[name]], name
