"""Sweeps, issue 14 section 2: the per-flow series (`[output] sample_flows`) as a table of
every run, table values for `--param` (switching a queue's kind), `--workers 0` and
`--seeds` forms. All serial (`workers=0`, no Dask) and small: each test a few seconds.

The truth each sweep is checked against is the single run: `superpacket.run` of the
same scenario written by hand (a dict edited here, not through `sweeps.set_path`)."""

import copy
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import superpacket

EXE = str(Path(sys.executable).parent / "superpacket")
LIMIT = "topology.receiver_link.queue.limit"


def sp(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, check=False)


def incast(examples: Path, **output: str) -> dict:
    """examples/incast.toml with start jitter (so that seeds differ), 0.5 s long (its ten
    flows finish within a few ms, or after one 200 ms minimum RTO), and `output`."""
    sc = tomllib.loads((examples / "incast.toml").read_text())
    sc["duration"] = "0.5s"
    sc["traffic"][0]["start_jitter"] = "50us"
    if output:
        sc["output"] = dict(output)
    return sc


def run_rows(df: pl.DataFrame, keys: dict) -> pl.DataFrame:
    """The rows of one run in a loaded sweep table, without the key columns."""
    for k, v in keys.items():
        df = df.filter(pl.col(k) == v)
    return df.drop(list(keys))


# ---- 1. the flow series ----------------------------------------------------------------------

def test_sweep_keeps_the_flow_series_of_every_run(examples, tmp_path):
    base = incast(examples, sample_flows="0.01s")
    out = tmp_path / "fs"
    r = superpacket.sweep(base, params={LIMIT: [20, 50]}, seeds=[1, 2], out=out, workers=0, progress=False)
    assert (r.runs, r.ran, r.failed) == (4, 4, [])
    data = superpacket.load_sweep(out)
    fs = data.flow_series
    assert fs.columns[:2] == [LIMIT, "seed"] and fs.schema[LIMIT] == pl.Int64 and fs.schema["seed"] == pl.Int64
    singles = {}
    for limit in (20, 50):
        for seed in (1, 2):
            sc = copy.deepcopy(base)
            sc["topology"]["receiver_link"]["queue"]["limit"] = limit
            truth = superpacket.run(sc, seed=seed).flow_series
            # 10 flows, sampled every 10 ms over 0.5 s: rows for each flow while it lives
            assert truth.height >= 10, truth
            got = run_rows(fs, {LIMIT: limit, "seed": seed})
            assert got.equals(truth), (limit, seed)
            singles[limit, seed] = truth
    # not trivially equal: the jitter makes the seeds' series differ
    assert not singles[20, 1].equals(singles[20, 2])
    assert fs.height == sum(t.height for t in singles.values())
    # the file of one run, as plain polars reads it
    d = out / f"{LIMIT}=20" / "seed=1"
    assert pl.read_parquet(d / "flow_series.parquet", glob=False).equals(singles[20, 1])


def test_sweep_without_sample_flows_loads_an_empty_flow_series(examples, tmp_path):
    out = tmp_path / "nofs"
    superpacket.sweep(incast(examples), params={LIMIT: [20, 50]}, seeds=[1], out=out, workers=0, progress=False)
    # every run folder holds the table, empty but with its columns (as `run --out` writes it)
    truth = superpacket.run(incast(examples)).flow_series
    assert truth.height == 0 and "bytes_received" in truth.columns
    for limit in (20, 50):
        f = out / f"{LIMIT}={limit}" / "seed=1" / "flow_series.parquet"
        assert pl.read_parquet(f, glob=False).equals(truth)
    data = superpacket.load_sweep(out)
    assert data.flow_series.height == 0
    assert data.flow_series.columns == [LIMIT, "seed", *truth.columns]
    assert data.flows.height == 2 * 10  # the other tables are there as before


def test_sweep_written_before_flow_series_still_loads(examples, tmp_path):
    """A sweep folder from before flow_series.parquet existed (the file removed here):
    the other tables load as before, flow_series is an empty frame of the keys."""
    out = tmp_path / "old"
    superpacket.sweep(incast(examples), params={LIMIT: [20]}, seeds=[1, 2], out=out, workers=0, progress=False)
    for f in out.rglob("flow_series.parquet"):
        f.unlink()
    data = superpacket.load_sweep(out)
    assert data.flows.height == 2 * 10
    assert data.flow_series.height == 0 and data.flow_series.columns == [LIMIT, "seed"]
