"""Sweeps, issue 14 section 2: the per-flow series (`[output] sample_flows`) as a table of
every run, table values for `--param` (switching a queue's kind), `--workers 0` and
`--seeds` forms. All serial (`workers=0`, no Dask) and small: each test a few seconds.

The truth each sweep is checked against is the single run: `superpacket.run` of the
same scenario written by hand (a dict edited here, not through `sweeps.set_path`)."""

import copy
import hashlib
import json
import math
import re
import subprocess
import sys
import tomllib
import urllib.parse
from pathlib import Path

import polars as pl
import pytest
import superpacket
from superpacket import _toml, sweeps
from superpacket.sweeps import load as sweep_load

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
    # the seed is a u64 in the simulator: UInt64 (seeds from 2^63 up, issue 30)
    assert fs.columns[:2] == [LIMIT, "seed"] and fs.schema[LIMIT] == pl.Int64 and fs.schema["seed"] == pl.UInt64
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


# ---- 2. a whole table as a parameter value ---------------------------------------------------

QUEUE = "topology.bottleneck.queue"
RED = {"kind": "red", "min_th": 5, "max_th": 15}  # no limit: RED's default, 1000 packets
DROPTAIL = {"kind": "droptail", "limit": 100}
CLI_QUEUES = f'{QUEUE}={{kind="red", min_th=5, max_th=15}}, {{ kind = "droptail", limit = 100 }}'


def test_parse_table_values():
    # the comma splitter keeps each {...} whole: two values, not five pieces
    assert sweeps.parse_param(CLI_QUEUES) == (QUEUE, [RED, DROPTAIL])
    # commas and braces inside quotes and brackets do not split either; TOML 1.1 trailing comma
    path, vals = sweeps.parse_param('a.b={s="x,}y", t=[1, 2], u={v=\'w,]\'},},7,"p,q"')
    assert (path, vals) == ("a.b", [{"s": "x,}y", "t": [1, 2], "u": {"v": "w,]"}}, 7, "p,q"])
    # an escaped quote inside a basic string does not end it
    assert sweeps.parse_param(r'a={s="x\",y"},2') == ("a", [{"s": 'x",y'}, 2])
    # the same table in another key order is one value; 1 and 1.0 are two
    assert sweeps.normalize_params(["a={x=1, y=2},{y=2, x=1},{x=1.0, y=2}"]) == {
        "a": [{"x": 1, "y": 2}, {"x": 1.0, "y": 2}]}
    # from Python: a list of dicts, or one dict
    assert sweeps.normalize_params({QUEUE: [RED, DROPTAIL]}) == {QUEUE: [RED, DROPTAIL]}
    assert sweeps.normalize_params({QUEUE: RED}) == {QUEUE: [RED]}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('{kind="red", min_th=nan, max_th=15}', f"{QUEUE}.min_th: must be a finite number"),
        ('{kind="red", min_th=5, max_th=inf}', f"{QUEUE}.max_th: must be a finite number"),
        ('{a={b=[1, -inf]}}', f"{QUEUE}.a.b[1]: must be a finite number"),
        # a TOML 1.1 multi-line inline table: still one line in the message
        ('{kind="red",\n min_th=-nan, max_th=15}', f"{QUEUE}.min_th: must be a finite number"),
        ('{kind="red"', "unclosed inline table"),
        ("[1, 2]", "a parameter value must be a TOML scalar"),
    ],
)
def test_bad_table_text_is_refused_naming_the_parameter(value, message):
    with pytest.raises(sweeps.SweepError, match=re.escape(message)) as e:
        sweeps.normalize_params([f"{QUEUE}={value}"])
    assert str(e.value).startswith(f"--param {QUEUE}") and "\n" not in str(e.value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_python_table_with_non_finite_number_is_refused(bad):
    with pytest.raises(sweeps.SweepError, match=re.escape(f"--param {QUEUE}: {QUEUE}.red.p_max: must be a finite")):
        sweeps.normalize_params({QUEUE: [DROPTAIL, {"kind": "red", "red": {"p_max": bad}}]})
    with pytest.raises(sweeps.SweepError, match=re.escape(f"{QUEUE}.limit: must be a value, not None")):
        sweeps.normalize_params({QUEUE: {"kind": "droptail", "limit": None}})


def test_table_folder_names():
    # `kind=red;max_th=15;min_th=5` (keys sorted, `;` between them), percent-encoded as a
    # hive value: = is %3D, ; is %3B
    assert sweeps.Point(((QUEUE, RED),), {}).dir == f"{QUEUE}=kind%3Dred%3Bmax_th%3D15%3Bmin_th%3D5"
    assert sweeps.Point(((QUEUE, dict(reversed(list(RED.items())))),), {}).dir == \
        sweeps.Point(((QUEUE, RED),), {}).dir  # key order does not matter
    # a string that reads as a number or holds a separator is JSON-quoted: "5" is not 5
    assert sweep_load.dir_value("q", {"a": "5"}) == "a%3D%225%22"
    assert sweep_load.dir_value("q", {"a": 5}) == "a%3D5"
    assert sweep_load.dir_value("q", {"a": "x;b=1"}) == "a%3D%22x%3Bb%3D1%22"
    assert sweep_load.dir_value("q", {"a": {"b": [1, 2.5]}}) == urllib.parse.quote("a={b=[1,2.5]}", safe="")
    # scalars keep the names sweeps have always had
    assert sweeps.Point((("x.link", "R->d"), ("y", 0.5), ("z", True)), {}).dir == "x.link=R-%3Ed/y=0.5/z=true"
    # long: cut, then ~ and 16 hex digits of the SHA-256 of the canonical JSON; two values
    # that differ only past the cut get two names, each within MAX_DIR_NAME bytes
    a, b = {"kind": "x" * 300 + "a"}, {"kind": "x" * 300 + "b"}
    na, nb = (f"{QUEUE}={sweep_load.dir_value(QUEUE, v)}" for v in (a, b))
    assert na != nb and len(na.encode()) <= sweep_load.MAX_DIR_NAME >= len(nb.encode())
    digest = hashlib.sha256(json.dumps(a, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]
    assert na.endswith("~" + digest) and na.startswith(f"{QUEUE}=kind%3Dxxx")
    # two values that would share a folder are refused before anything runs
    with pytest.raises(sweeps.SweepError, match=r"--param tcp\.cc: values .* would share the folder"):
        sweeps.check_dir_names({"tcp.cc": ["kind=red", {"kind": "red"}]})


def test_set_path_replaces_a_table_whole():
    base = {"topology": {"bottleneck": {"queue": {"kind": "droptail", "limit": 40, "ecn_threshold": 10}}}}
    sweeps.set_path(base, QUEUE, RED)
    # not merged: no limit or ecn_threshold of the droptail queue left in the RED table
    assert base["topology"]["bottleneck"]["queue"] == RED
    base["topology"]["bottleneck"]["queue"]["min_th"] = 1
    assert RED["min_th"] == 5  # a copy: points never share a table


def short_dumbbell(examples: Path) -> dict:
    """examples/dumbbell.toml with 2 pairs for 2 s (about 0.3 s of wall time a run): its
    bottleneck queue is DropTail of 40 packets."""
    sc = tomllib.loads((examples / "dumbbell.toml").read_text())
    sc["duration"] = "2s"
    sc["topology"]["pairs"] = 2
    sc["traffic"][0]["count"] = 2
    assert sc["topology"]["bottleneck"]["queue"] == {"kind": "droptail", "limit": 40}
    return sc


def test_sweep_switches_the_queue_kind(examples, tmp_path):
    base = short_dumbbell(examples)
    f = tmp_path / "d.toml"
    f.write_text(_toml.dumps(base))
    out = tmp_path / "q"
    r = sp("sweep", str(f), "--param", CLI_QUEUES, "--seeds", "1,2", "--workers", "0", "--quiet", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "4 runs, 0 already done, 4 run now, 0 failed" in r.stdout
    data = superpacket.load_sweep(out)
    # the parameter column holds each table's canonical JSON
    col = {"red": '{"kind":"red","max_th":15,"min_th":5}', "droptail": '{"kind":"droptail","limit":100}'}
    assert data.flows.schema[QUEUE] == pl.String
    assert set(data.flows[QUEUE]) == set(col.values())
    for kind, value in (("red", RED), ("droptail", DROPTAIL)):
        for seed in (1, 2):
            sc = copy.deepcopy(base)
            sc["topology"]["bottleneck"]["queue"] = dict(value)  # by hand
            truth = superpacket.run(sc, seed=seed)
            keys = {QUEUE: col[kind], "seed": seed}
            assert run_rows(data.flows, keys).equals(truth.flows)
            assert run_rows(data.links, keys).equals(truth.links)
            d = out / f"{QUEUE}={sweep_load.dir_value(QUEUE, value)}" / f"seed={seed}"
            # summary.json is the run's summary made readable (TCP configurations as tables,
            # times to the nanosecond, its rates), as `Results.write` writes it
            assert json.loads((d / "summary.json").read_text()) == truth.summary_json()
            bott = truth.links.filter(pl.col("name") == "R1->R2").row(0, named=True)
            assert bott["queue"] == kind
            # replaced, not merged with the base's DropTail of 40: RED gets its default
            # limit (1000) and early drops; the DropTail has 100 packets and none
            assert bott["limit"] == (1000 if kind == "red" else 100)
            assert (bott["drops_red_early"] > 0) == (kind == "red")
    # the same sweep from Python (dicts, another key order): the same folders, identical bytes
    out2 = tmp_path / "q2"
    superpacket.sweep(f, params={QUEUE: [DROPTAIL, dict(reversed(list(RED.items())))]}, seeds=[1, 2],
                      out=out2, workers=0, progress=False)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file() and p.name != "sweep.json")
    assert len(files) == 4 * 8
    assert files == sorted(p.relative_to(out2) for p in out2.rglob("*") if p.is_file() and p.name != "sweep.json")
    assert all((out / p).read_bytes() == (out2 / p).read_bytes() for p in files)


def test_table_sweep_resumes_and_grows(examples, tmp_path):
    """sweep.json holds the tables; the same table in another key order is the same value."""
    base = short_dumbbell(examples)
    out = tmp_path / "g"
    superpacket.sweep(base, params={QUEUE: [RED]}, seeds=[1], out=out, workers=0, progress=False)
    r = superpacket.sweep(base, params={QUEUE: [DROPTAIL, {"min_th": 5, "max_th": 15, "kind": "red"}]}, seeds=[1],
                          out=out, workers=0, progress=False)
    assert (r.runs, r.skipped, r.ran) == (2, 1, 1)
    assert sweeps.read_meta(out)["params"] == {QUEUE: [RED, DROPTAIL]}
    assert superpacket.load_sweep(out).summary.height == 2
    # the report lists table values as the loader's column has them (JSON), not Python dicts
    from superpacket import reports

    md = reports.report(out).read_text()
    assert '{"kind": "red", "max_th": 15, "min_th": 5}; {"kind": "droptail", "limit": 100}' in md
    assert "{'kind'" not in md


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ('{kind="red", min_th=5}', "missing field `max_th`"),  # schema: RED needs both thresholds
        ('{kind="red", min_th=5, max_th=1}', "must be > min_th"),
        ('{kind="droptail", limt=100}', f"{QUEUE}.limt: unknown field"),
        ('{kind="fifo"}', 'unknown queue kind "fifo"'),
        ('{kind="droptail", limit=nan}', f"{QUEUE}.limit: must be a finite number"),
    ],
)
def test_bad_table_value_exit_2_one_line_before_any_run(examples, tmp_path, value, named):
    out = tmp_path / "bad"
    # the good value first: nothing of it may run either
    r = sp("sweep", str(examples / "dumbbell.toml"), "--param", f'{QUEUE}={{kind="droptail", limit=20}},{value}',
           "--seeds", "1", "--workers", "0", "--out", str(out))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"superpacket: --param {QUEUE}"), r.stderr
    assert named in lines[0]
    assert not out.exists()


# ---- 3. --workers 0 and --seeds ---------------------------------------------------------------

_NO_DASK = """
import sys
sys.modules["distributed"] = None  # any import of Dask now raises ImportError
sys.modules["dask"] = None
from superpacket.cli import main
sys.exit(main(sys.argv[1:]))
"""


def no_dask(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _NO_DASK, *args], capture_output=True, text=True, check=False)


def test_workers_0_runs_here_without_dask_for_sweep_and_reproduce(examples, tmp_path):
    """`sweep --workers 0` and `reproduce --workers 0` both run one run after another in
    this process: they succeed where Dask cannot even be imported. datatag runs on a local
    cluster by default (PARALLEL_BY_DEFAULT), so --workers 0 is what keeps it here."""
    f = tmp_path / "i.toml"
    f.write_text(_toml.dumps(incast(examples)))
    out = tmp_path / "s"
    r = no_dask("sweep", str(f), "--param", f"{LIMIT}=20,50", "--seeds", "1,3", "--workers", "0", "--quiet",
                "--out", str(out))
    assert r.returncode == 0, r.stderr
    # --seeds 1,3: exactly those seeds
    assert sorted(p.relative_to(out).as_posix() for p in out.glob("*/seed=*")) == [
        f"{LIMIT}=20/seed=1", f"{LIMIT}=20/seed=3", f"{LIMIT}=50/seed=1", f"{LIMIT}=50/seed=3"]
    r = no_dask("reproduce", "datatag", "--seeds", "1", "--workers", "0", "--duration", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["experiment"] == "datatag"
    # the check can fail: with workers the same commands need Dask
    bad = no_dask("sweep", str(f), "--seeds", "1", "--workers", "1", "--quiet", "--out", str(tmp_path / "w"))
    assert bad.returncode != 0 and "No module named 'distributed" in bad.stderr


@pytest.mark.parametrize(("seeds", "expect"), [("3", [1, 2, 3]), ("2..4", [2, 3, 4]), ("5,1", [1, 5]),
                                                ("1..2,7", [1, 2, 7])])
def test_seeds_forms_give_those_seeds(examples, tmp_path, seeds, expect):
    out = tmp_path / "s"
    r = sp("sweep", str(examples / "incast.toml"), "--seeds", seeds, "--workers", "0", "--quiet", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert superpacket.load_sweep(out).summary["seed"].to_list() == expect


def test_readme_table_value_claims(root):
    """The sweeps how-to's example of a table value: its folder and column, as it states them."""
    readme = (root / "docs/howto/sweeps.md").read_text()
    arg = ('topology.bottleneck.queue={kind="red", min_th=5, max_th=15, limit=100},'
           '{kind="droptail", limit=100}')
    assert f"--param '{arg}'" in readme
    path, (red, droptail) = sweeps.parse_param(arg)
    assert droptail == {"kind": "droptail", "limit": 100}
    folder = f"{path}={sweep_load.dir_value(path, red)}"
    column = sweep_load.column_value(red)
    assert f"(`{folder}`;" in readme and folder == f"{QUEUE}=kind%3Dred%3Blimit%3D100%3Bmax_th%3D15%3Bmin_th%3D5"
    assert f"(`{column}`)" in readme and json.loads(column) == red
    assert "would pass 200\nbytes" in readme and sweep_load.MAX_DIR_NAME == 200


def test_a_long_string_value_gets_a_cut_folder_and_loads_whole(examples, tmp_path):
    """A string too long for a folder name (300 bytes; before, mkdir failed with
    ENAMETOOLONG mid-sweep) gets a cut name with a hash; the column holds the whole string."""
    names = ["n" * 300 + "a", "n" * 300 + "b"]
    out = tmp_path / "long"
    superpacket.sweep(incast(examples), params={"name": names}, seeds=[1], out=out, workers=0, progress=False)
    dirs = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert len(dirs) == 2 and all(len(d.encode()) <= sweep_load.MAX_DIR_NAME for d in dirs)
    flows = superpacket.load_sweep(out).flows  # its `name` column is the parameter's alone
    assert flows.columns[:2] == ["name", "seed"] and flows.columns.count("name") == 1
    assert flows["name"].unique().sort().to_list() == names
