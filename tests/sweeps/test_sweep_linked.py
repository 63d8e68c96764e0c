"""Linked sweep parameters: `--link NAME=PATH,PATH` (Python `links=`) makes several
--param paths vary together as one parameter, `--label NAME=L1,L2` (`labels=`) names its
points. Serial sweeps (`workers=0`) of the incast example, 0.2 s each.

The truth each check is held against is written here by hand: the values that point i
of a group sets are the i-th of each path's list (so the run's own scenario.toml must
hold them), the grid has (points of the group) x (values of each other parameter) x
seeds runs, and the loaded columns are typed from the values (100 < 300 < 1000 sorts as
numbers, not as text)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
import superpacket
from superpacket import _toml, limits, sweeps

EXE = str(Path(sys.executable).parent / "superpacket")
LIMIT = "topology.receiver_link.queue.limit"
JITTER = "traffic[0].start_jitter"
COUNT = "traffic[0].count"


def base(examples: Path) -> dict:
    sc = tomllib.loads((examples / "incast.toml").read_text())
    sc["duration"] = "0.2s"
    sc["traffic"][0]["start_jitter"] = "50us"
    return sc


def test_linked_points_set_their_values_together(examples, tmp_path):
    out = tmp_path / "s"
    params = {LIMIT: [1000, 20, 300], COUNT: [4, 8, 6], JITTER: ["0us", "50us"]}
    r = superpacket.sweep(base(examples), params=params, seeds=[1, 2], out=out, workers=0, progress=False,
                          links={"load": [LIMIT, COUNT]}, labels={"load": ["big", "tiny", "mid"]})
    # 3 linked points x 2 jitters x 2 seeds (a full grid would be 3 x 3 x 2 x 2 = 36)
    assert (r.runs, r.ran, r.failed) == (12, 12, [])
    # one folder level per group, named by the label
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["load=big", "load=mid", "load=tiny"]
    want = {"big": (1000, 4), "tiny": (20, 8), "mid": (300, 6)}
    for label, (limit, count) in want.items():
        for run in (out / f"load={label}").glob("*/seed=*"):
            sc = tomllib.loads((run / "scenario.toml").read_text())
            assert sc["topology"]["receiver_link"]["queue"]["limit"] == limit
            assert sc["traffic"][0]["count"] == count
    data = superpacket.load_sweep(out)
    assert data.params == ["load", JITTER] and data.linked == {"load": [LIMIT, COUNT]}
    s = data.summary
    assert s.columns[:5] == ["load", LIMIT, COUNT, JITTER, "seed"]
    assert (s.schema["load"], s.schema[LIMIT], s.schema[COUNT]) == (pl.String, pl.Int64, pl.Int64)
    # rows in the order the points were given, each with its own values
    assert s["load"].unique(maintain_order=True).to_list() == ["big", "tiny", "mid"]
    for row in s.select(["load", LIMIT, COUNT]).iter_rows():
        assert want[row[0]] == row[1:]
    # the flows table agrees: `count` flows in each run of the point
    f = data.flows.group_by(["load", JITTER, "seed"]).agg(pl.len().alias("n"), pl.col(COUNT).first())
    assert (f["n"] == f[COUNT]).all()


def test_default_labels_name_each_field(examples, tmp_path):
    out = tmp_path / "d"
    superpacket.sweep(base(examples), params={LIMIT: [20, 50], COUNT: [4, 8]}, seeds=1, out=out, workers=0,
                      progress=False, links={"q": [LIMIT, COUNT]})
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["q=limit%3D20%3Bcount%3D4",
                                                                   "q=limit%3D50%3Bcount%3D8"]
    assert superpacket.load_sweep(out).summary["q"].to_list() == ["limit=20;count=4", "limit=50;count=8"]


def test_a_group_of_one_labels_table_values(examples, tmp_path):
    # the RED-or-DropTail sweep of the issue: table values with short folder names
    out = tmp_path / "t"
    q = "topology.receiver_link.queue"
    tables = [{"kind": "red", "min_th": 5, "max_th": 15, "limit": 100}, {"kind": "droptail", "limit": 100}]
    superpacket.sweep(base(examples), params={q: tables}, seeds=1, out=out, workers=0, progress=False,
                      links={"queue": [q]}, labels={"queue": ["red", "droptail"]})
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["queue=droptail", "queue=red"]
    s = superpacket.load_sweep(out).summary
    assert s["queue"].to_list() == ["red", "droptail"]
    assert s[q].to_list()[1] == '{"kind":"droptail","limit":100}'


@pytest.mark.parametrize("links,labels,params,needle", [
    ({"g": [LIMIT, COUNT]}, None, {LIMIT: [20, 50], COUNT: [4]},
     f"--link g: linked parameters take one value each per point; they have {LIMIT} 2, {COUNT} 1"),
    ({"g": [LIMIT, "tcp.init_cwnd"]}, None, {LIMIT: [20]}, "--link g: tcp.init_cwnd is not a --param"),
    ({"g": [LIMIT]}, {"g": ["a", "b", "c"]}, {LIMIT: [20, 50]}, "--label g: 3 labels for 2 points"),
    ({"g": [LIMIT]}, {"g": ["a", "a"]}, {LIMIT: [20, 50]}, "--label g: labels must differ"),
    ({"g": [LIMIT]}, {"h": ["a", "b"]}, {LIMIT: [20, 50]}, "--label h: not a linked group"),
    ({"duration": [LIMIT]}, None, {LIMIT: [20, 50], "duration": ["0.2s"]},
     "--link duration: the group's name is a parameter's path"),
    ({"g": [LIMIT], "h": [LIMIT]}, None, {LIMIT: [20, 50]}, f"--link h: {LIMIT} is already linked in g"),
    ({"g": [LIMIT, COUNT]}, None, {LIMIT: [20, 20], COUNT: [4, 4]}, "--link g: points 1 and 2 set the same values"),
    ({"1g": [LIMIT]}, None, {LIMIT: [20]}, "--link 1g: a group name"),
    ({"g": [LIMIT]}, {"g": ["a/b" * 40]}, {LIMIT: [20]}, "a label is 1 to 64 printable characters"),
])
def test_bad_links_are_refused_by_name(examples, tmp_path, links, labels, params, needle):
    with pytest.raises(sweeps.SweepError) as e:
        superpacket.sweep(base(examples), params=params, seeds=1, out=tmp_path / "x", workers=0, progress=False,
                          links=links, labels=labels)
    assert needle in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "x").exists()  # refused before anything is written


def test_a_group_counts_once_against_the_run_limit():
    # three paths of n values each are n points, not n^3: 1000 values each pass the
    # limit of 10^6 runs that 1000^3 = 10^9 would break; two unlinked lists of 1001 do not
    many = list(range(1, 1001))
    params = sweeps.normalize_params({"a.x": many, "a.y": many, "a.z": many}, linked={"g": ["a.x", "a.y", "a.z"]})
    assert [len(v) for v in params.values()] == [1000, 1000, 1000]
    assert 1000 * 1000 * 1000 > limits.MAX_RUNS
    with pytest.raises(sweeps.SweepError, match="parameter points"):
        sweeps.normalize_params({"a.x": list(range(1001)), "a.y": list(range(1001))})
    # a linked path keeps repeated values (they pair with the other paths by position)
    assert sweeps.normalize_params({"a.x": [1, 1, 2], "a.y": [1, 2, 3]}, linked={"g": ["a.x", "a.y"]}) == \
        {"a.x": [1, 1, 2], "a.y": [1, 2, 3]}


def test_command_line_link_and_label_and_resume(examples, tmp_path):
    f = tmp_path / "incast.toml"
    f.write_text(_toml.dumps(base(examples)))
    out = tmp_path / "cli"

    def cli(labels: str, where: Path) -> subprocess.CompletedProcess:
        return subprocess.run([EXE, "sweep", str(f), "--param", f"{LIMIT}=20,50", "--param", f"{COUNT}=4,8",
                               "--link", f"q={LIMIT},{COUNT}", "--label", labels, "--seeds", "1",
                               "--workers", "0", "--out", str(where), "--quiet"],
                              capture_output=True, text=True, check=False)

    p = cli("q=small,large", out)
    assert p.returncode == 0, p.stderr
    assert "2 runs, 0 already done, 2 run now" in p.stdout
    assert sorted(d.name for d in out.iterdir() if d.is_dir()) == ["q=large", "q=small"]
    # the same command resumes: nothing to run
    p = cli("q=small,large", out)
    assert p.returncode == 0 and "2 already done, 0 run now" in p.stdout
    # other labels into the same folder: refused, one line
    p = cli("q=lo,hi", out)
    assert p.returncode == 2 and "other linked groups" in p.stderr and p.stderr.count("\n") == 1
    p = cli("q=a", tmp_path / "y")
    assert p.returncode == 2 and "--label q: 1 labels for 2 points" in p.stderr
