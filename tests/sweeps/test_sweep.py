"""Sweeps: parameter paths and values checked before any run, Dask (a local cluster and an
existing scheduler given by address), resuming after a kill without redoing or losing
runs, determinism, failures recorded while the sweep goes on, `reproduce` on Dask."""

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import polars as pl
import pytest
import superpacket
from superpacket import _core, _toml, sweeps
from superpacket.cluster import dask_client
from superpacket.experiments import incast

BIN = Path(sys.executable).parent
EXE = str(BIN / "superpacket")
FILES = {"flows.parquet", "links.parquet", "queue_series.parquet", "queue_counters.parquet", "flow_series.parquet",
         "summary.parquet", "summary.json", "scenario.toml"}
# the incast scenario with start jitter (absent from the file: the schema accepts it), so seeds differ
PARAMS = {"topology.receiver_link.queue.limit": [20, 50], "traffic[0].start_jitter": ["50us"]}


def sp(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, check=False, **kw)


@pytest.fixture(scope="module", autouse=True)
def _stop_forkserver_after_module():
    """The forkserver that this module's local clusters start lives on in the test
    process and hands its environment to every worker it forks later. Stopped at the
    end of the module, so that a later test's cluster gets a forkserver with that test's
    environment (test_hostile_input's panic test sets SUPERPACKET_TEST_PANIC for its
    workers: with this module's forkserver still running, its worker never saw it)."""
    yield
    import multiprocessing.forkserver

    stop = getattr(multiprocessing.forkserver._forkserver, "_stop", None)
    if stop is not None:
        stop()


@pytest.fixture(scope="module")
def client():
    with dask_client(workers=2) as c:
        yield c


def run_dirs(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("seed=*") if p.is_dir())


# ---- input ----------------------------------------------------------------------------------

def test_param_paths_values_and_seeds():
    assert sweeps.parse_path("traffic[0].tcp.init_cwnd") == ["traffic", 0, "tcp", "init_cwnd"]
    assert sweeps.parse_param("topology.receiver_link.rate=10Gbps,1Gbps") == (
        "topology.receiver_link.rate", ["10Gbps", "1Gbps"])
    assert sweeps.parse_param('a.b=20, 0.5, true, "x,y"') == ("a.b", [20, 0.5, True, "x,y"])
    assert sweeps.parse_seeds("1..4") == [1, 2, 3, 4]
    assert sweeps.parse_seeds("3") == [1, 2, 3]
    assert sweeps.parse_seeds("2,7..8") == [2, 7, 8]
    with pytest.raises(sweeps.SweepError):
        sweeps.parse_seeds("1..x")


@pytest.mark.parametrize("name", ["incast.toml", "dumbbell.toml", "incast-superpacket.toml"])
def test_toml_writer_round_trips_examples(examples, name):
    d = tomllib.loads((examples / name).read_text())
    text = _toml.dumps(d)
    assert tomllib.loads(text) == d
    _core.validate(text, "toml")


@pytest.mark.parametrize(
    ("param", "named"),
    [
        ("topology.receiver_link.queue.limt=20", "topology.receiver_link.queue.limt"),  # unknown field
        ("topology.receiver_link.queue.limit=20,0", "topology.receiver_link.queue.limit=0"),  # bad value
        ("topology.receiver_link.rate=10Gbps,10Gbs", "topology.receiver_link.rate='10Gbs'"),
        ("traffic[0].count=abc", "traffic[0].count"),
        ("traffic[3].count=1", "traffic[3]"),  # no such array element
        ("duration.x=1", "duration.x"),
        ("topology..x=1", "topology..x"),
    ],
)
def test_bad_param_fails_at_once_exit_2_one_line(examples, tmp_path, param, named):
    out = tmp_path / "out"
    r = sp("sweep", str(examples / "incast.toml"), "--param", param, "--seeds", "1..50", "--out", str(out))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert named in lines[0]
    assert "Traceback" not in r.stderr
    assert not out.exists()  # checked before anything ran or was written


def test_valid_path_absent_from_base_is_accepted(examples):
    base = sweeps.load_base(examples / "incast.toml")
    pts = sweeps.build_points(base, {"tcp.delayed_ack": [True, False], "output.sample_interval": ["5ms"]})
    assert [p.dir for p in pts] == ["tcp.delayed_ack=true/output.sample_interval=5ms",
                                    "tcp.delayed_ack=false/output.sample_interval=5ms"]
    text = pts[0].run_toml(3)
    assert tomllib.loads(text)["output"] == {"sample_interval": "5ms"} and "seed = 3" in text
    # a value that is not a plain word is percent-encoded in its folder name (hive style)
    assert sweeps.Point((("x.link", "R->d"), ("y", 0.5)), {}).dir == "x.link=R-%3Ed/y=0.5"


# ---- running --------------------------------------------------------------------------------

def test_same_sweep_twice_is_identical_dask_or_serial(client, examples, tmp_path):
    runs = []
    # files back to this process / written by the workers / no Dask
    for name, kw in (("a", {"client": client}), ("b", {"client": client, "shared_fs": True}), ("c", {"workers": 0})):
        out = tmp_path / name
        r = superpacket.sweep(examples / "incast.toml", params=PARAMS, seeds=range(1, 4), out=out, **kw)
        assert (r.runs, r.ran, r.skipped, r.failed) == (6, 6, 0, [])
        runs.append(superpacket.load_sweep(out))
    for t in sweeps.TABLES:
        a = getattr(runs[0], t)
        for other in runs[1:]:
            assert a.equals(getattr(other, t)), t
    # the seeds differ (start jitter), so identity is not trivial
    s = runs[0].summary
    assert s.filter(pl.col("topology.receiver_link.queue.limit") == 20)["mean_fct_s"].n_unique() > 1

    out = tmp_path / "a"
    assert (out / "topology.receiver_link.queue.limit=20" / "traffic[0].start_jitter=50us" / "seed=1").is_dir()
    for d in run_dirs(out):
        assert {f.name for f in d.iterdir()} == FILES
    # one hive-partitioned dataset per table, as plain polars reads it
    flows = pl.read_parquet(str(out / "**" / "flows.parquet"), hive_partitioning=True)
    assert flows.height == 6 * 10
    assert set(flows["topology.receiver_link.queue.limit"]) == {20, 50}
    assert set(flows["seed"]) == {1, 2, 3}
    # the parameter took effect: a 20-packet buffer drops more of the same incast than 50
    drops = s.group_by("topology.receiver_link.queue.limit").agg(pl.col("drops").sum()).sort(
        "topology.receiver_link.queue.limit")["drops"].to_list()
    assert drops[0] > drops[1]


def test_saved_scenario_reproduces_its_run(client, examples, tmp_path):
    out = tmp_path / "s"
    superpacket.sweep(examples / "incast.toml", params=PARAMS, seeds=[2], out=out, client=client)
    d = out / "topology.receiver_link.queue.limit=20" / "traffic[0].start_jitter=50us" / "seed=2"
    sc = tomllib.loads((d / "scenario.toml").read_text())
    assert sc["seed"] == 2 and sc["topology"]["receiver_link"]["queue"]["limit"] == 20
    assert sc["traffic"][0]["start_jitter"] == "50us"
    again = superpacket.run(str(d / "scenario.toml"))  # the file alone, its own seed
    assert again.flows.equals(pl.read_parquet(d / "flows.parquet", glob=False))


def fail_on_seed_2(text: str, seed: int) -> dict:
    if seed == 2:
        raise RuntimeError("injected failure")
    return sweeps.run_to_files(text, seed)


def test_failed_run_is_recorded_and_the_sweep_goes_on(client, examples, tmp_path):
    out = tmp_path / "f"
    r = superpacket.sweep(examples / "incast.toml", params=PARAMS, seeds=range(1, 4), out=out, client=client,
                          _runner=fail_on_seed_2)
    assert r.ran == 4 and len(r.failed) == 2
    recs = [json.loads(ln) for ln in (out / "failures.jsonl").read_text().splitlines()]
    assert sorted((x["params"]["topology.receiver_link.queue.limit"], x["seed"]) for x in recs) == [(20, 2), (50, 2)]
    assert all("injected failure" in x["error"] for x in recs)
    assert len(run_dirs(out)) == 4
    # the next sweep runs only what failed
    r2 = superpacket.sweep(examples / "incast.toml", params=PARAMS, seeds=range(1, 4), out=out, client=client)
    assert (r2.skipped, r2.ran, r2.failed) == (4, 2, [])
    assert not (out / "failures.jsonl").exists()


def test_other_scenario_in_same_out_is_refused(examples, tmp_path):
    out = tmp_path / "o"
    superpacket.sweep(examples / "incast.toml", params=PARAMS, seeds=[1], out=out, workers=0)
    with pytest.raises(sweeps.SweepError, match="another scenario"):
        superpacket.sweep(examples / "dumbbell.toml", params={"duration": ["1s"]}, seeds=[1], out=out, workers=0)


def test_killed_sweep_resumes_without_redoing_or_losing_runs(examples, tmp_path):
    out = tmp_path / "k"
    args = ["sweep", str(examples / "dumbbell.toml"), "--param", "duration=60s",
            "--param", "topology.bottleneck.queue.limit=20,40,80", "--seeds", "1..16", "--out", str(out),
            "--workers", "2", "--chunk", "1"]
    total = 3 * 16
    p = subprocess.Popen([EXE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while len(run_dirs(out)) < 6 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the sweep and its cluster's worker processes
        p.communicate()
    done = run_dirs(out)
    assert 6 <= len(done) < total, "the sweep should have been killed half-way"
    for d in done:  # every run folder is whole (atomic rename)
        assert {f.name for f in d.iterdir()} == FILES
    mtimes = {d: (d / "flows.parquet").stat().st_mtime_ns for d in done}

    r = sp(*args)
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip().splitlines()[-1]
    skipped = int(line.split(" runs, ")[1].split(" already")[0])
    ran = int(line.split("done, ")[1].split(" run now")[0])
    assert skipped == len(done) and skipped + ran == total, line
    assert {d: (d / "flows.parquet").stat().st_mtime_ns for d in done} == mtimes  # not redone
    after = run_dirs(out)
    assert len(after) == total
    assert all({f.name for f in d.iterdir()} == FILES for d in after)
    s = superpacket.load_sweep(out).summary
    assert s.height == total and s.select("topology.bottleneck.queue.limit", "seed").n_unique() == total
    assert not (tmp_path / ".k.partial").exists()


# ---- an existing Dask cluster ---------------------------------------------------------------

@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A real `dask scheduler` and one `dask worker` on 127.0.0.1, as subprocesses."""
    d = tmp_path_factory.mktemp("dask")
    f = d / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    sched = subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                              "--no-dashboard", "--scheduler-file", str(f)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=d)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not f.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        address = json.loads(f.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        worker = subprocess.Popen([str(BIN / "dask"), "worker", address, "--host", "127.0.0.1", "--nworkers", "1",
                                   "--nthreads", "1", "--no-dashboard", "--memory-limit", "2GiB"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=d)
        from distributed import Client

        with Client(address, timeout="30s") as c:
            c.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for proc in (worker, sched):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_sweep_on_an_existing_scheduler(scheduler, examples, tmp_path):
    out = tmp_path / "remote"
    r = sp("sweep", str(examples / "incast.toml"), "--param", "topology.receiver_link.queue.limit=20,50",
           "--seeds", "1..3", "--out", str(out), "--scheduler", scheduler)
    assert r.returncode == 0, r.stderr
    assert "6 runs, 0 already done, 6 run now, 0 failed" in r.stdout
    assert len(run_dirs(out)) == 6
    from distributed import Client

    with Client(scheduler) as c:  # the runs were tasks of that scheduler
        prefixes = c.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.task_prefixes))
    assert "run_chunk" in prefixes


def test_reproduce_on_an_existing_scheduler_matches_serial(scheduler):
    r = sp("reproduce", "incast", "--seeds", "2", "--json", "--scheduler", scheduler)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == json.loads(json.dumps(incast.run(seeds=2)))


def test_local_workers_share_the_machines_memory(client):
    """Each local worker may use its share of the machine's memory (a full-scale
    riops-web run peaks at 2.6 GB; a fixed 2 GiB limit killed its worker), and no more."""
    import psutil
    from superpacket.cluster import worker_memory_limits

    total = psutil.virtual_memory().total
    limits = worker_memory_limits(client)
    assert len(limits) == 2
    for lim in limits:
        assert 0.45 * total <= lim <= 0.5 * total + 2**20


def test_run_seeds_with_a_client_same_results_same_order(client):
    assert incast.run(seeds=2, client=client) == incast.run(seeds=2)


def test_bench_sweep_reports_both_wall_times_and_worker_memory():
    import psutil

    r = sp("bench", "--sweep", "--runs", "4", "--workers", "2", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["identical_results"] and d["failed"] == 0
    assert d["ratio"] == pytest.approx(d["sweep_s"] / d["serial_s"])
    assert d["warm_ratio"] == pytest.approx(d["warm_sweep_s"] / d["serial_s"])
    assert len(d["worker_peak_rss_bytes"]) == 2
    limits = d["worker_memory_limit_bytes"]
    assert len(limits) == 2
    assert all(lim >= 0.45 * psutil.virtual_memory().total for lim in limits)  # the machine's share
    # each worker's peak RSS: an interpreter with polars, distributed and the extension
    # imported, after a few incast runs (README: 93 to 102 MiB), so well above 20 MiB and
    # well below 1 GiB. (`rss < limit` could not fail: dask itself ends a worker that
    # passes 95 % of its limit, here about 12 GiB.)
    assert all(20 * 2**20 < b < 2**30 for b in d["worker_peak_rss_bytes"]), d["worker_peak_rss_bytes"]
    assert d["start_method"] == "fork"  # each leg runs in a fresh process


_FORK_PROBE = """
import json, sys
import polars as pl
from superpacket import cluster, sweeps
before = cluster.fork_is_safe()
r = sweeps.sweep(sys.argv[1], None, range(1, 5), sys.argv[2], workers=2, progress=False)
pl.DataFrame({"a": list(range(100000))}).sort("a")  # starts polars' pools
print(json.dumps({"before": before, "method": r.start_method, "ran": r.ran,
                  "after_polars": cluster.fork_is_safe(), "then": cluster.start_method()}))
"""


def test_workers_fork_from_a_fresh_process_and_not_once_polars_runs(examples, tmp_path):
    """A fresh process forks its workers (fast start-up) and gets the same data as a
    serial sweep; once polars' thread pools run, forking would hang the children, and
    the forkserver is used instead."""
    p = subprocess.run([sys.executable, "-c", _FORK_PROBE, str(examples / "incast.toml"), str(tmp_path / "f")],
                       capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout.strip().splitlines()[-1])
    assert d == {"before": True, "method": "fork", "ran": 4, "after_polars": False, "then": "forkserver"}
    sweeps.sweep(examples / "incast.toml", None, range(1, 5), tmp_path / "s", workers=0, progress=False)
    a, b = sweeps.load_sweep(tmp_path / "f"), sweeps.load_sweep(tmp_path / "s")
    assert all(getattr(a, t).equals(getattr(b, t)) for t in sweeps.TABLES)


def test_a_forkserver_sweep_matches_serial(examples, tmp_path):
    """Once polars' pools run in this process, its own-cluster sweep takes the forkserver."""
    from superpacket import cluster

    pl.DataFrame({"a": list(range(100000))}).sort("a")
    assert not cluster.fork_is_safe()
    r = sweeps.sweep(examples / "incast.toml", None, range(1, 5), tmp_path / "k", workers=2, progress=False)
    assert r.start_method == "forkserver" and r.ran == 4
    sweeps.sweep(examples / "incast.toml", None, range(1, 5), tmp_path / "s", workers=0, progress=False)
    a, b = sweeps.load_sweep(tmp_path / "k"), sweeps.load_sweep(tmp_path / "s")
    assert all(getattr(a, t).equals(getattr(b, t)) for t in sweeps.TABLES)
