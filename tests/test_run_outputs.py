"""What `superpacket run` writes for a person: summary.json's TCP configurations as
tables (the simulator records them as Rust Debug text), its clock times rounded to the
clock's 1 ns, and a terminal summary that names each flow's cc and lists the links that
matter (host links only where they dropped or marked, unless --all-links)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from superpacket import sweeps
from superpacket.tcp_config import readable, readable_summary, tcp_text

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).parent / "superpacket")

# lines as the simulator writes them (copied from runs of examples/dumbbell.toml with
# [tcp] cc = cubic; recovery = "sack", reordering = "dcr"; gate bursts), and by hand the
# table each one means
CASES = [
    ("cc: Newreno; recovery: NewReno; reordering: None; gate: None",
     {"cc": {"kind": "newreno"}, "recovery": "newreno", "reordering": "none", "gate": "none"}),
    (("cc: Cubic(Params { c: 0.4, beta: 0.7, fast_convergence: true, reno_friendly: true, ssthresh_from: Flight }); "
      "recovery: NewReno; reordering: None; gate: None"),
     {"cc": {"kind": "cubic", "c": 0.4, "beta": 0.7, "fast_convergence": True, "reno_friendly": True,
             "ssthresh_from": "flight"}, "recovery": "newreno", "reordering": "none", "gate": "none"}),
    (("cc: Newreno; recovery: Sack; reordering: Dcr(DcrConfig { tau_srtt: 1.0, tau: None, base: FirstDupack, "
      "grow_during_tau: true, rearm_rto: true }); gate: None"),
     {"cc": {"kind": "newreno"}, "recovery": "sack",
      "reordering": {"kind": "dcr", "tau_srtt": 1.0, "tau": None, "base": "first_dupack", "grow_during_tau": True,
                     "rearm_rto": True}, "gate": "none"}),
    (("cc: Fixed { window: 10.0 }; recovery: NewReno; reordering: None; gate: Bursts { burst_pkts: 10, "
      "rate_bps: 5000000.0 }"),
     {"cc": {"kind": "fixed", "window": 10.0}, "recovery": "newreno", "reordering": "none",
      "gate": {"kind": "bursts", "burst_pkts": 10, "rate_bps": 5000000.0}}),
    # Some(x) is x; an infinity (no JSON number) as text; a field whose name starts with "inf"
    (("cc: Highspeed(Params { mode: LinuxTable, per_ack: false, low_p: Some(0.0000001), cap: inf, "
      "inflight: 3 }); recovery: NewReno; reordering: None; gate: None"),
     {"cc": {"kind": "highspeed", "mode": "linux_table", "per_ack": False, "low_p": 1e-7, "cap": "inf",
             "inflight": 3}, "recovery": "newreno", "reordering": "none", "gate": "none"}),
    # the host's parts, by the names a scenario gives them (Linux's host with cubic; a
    # limited slow start; TSQ off)
    (("cc: Newreno; recovery: Sack; reordering: None; gate: None; prr: true; limited_transmit: true; "
      "sack_after_rto: \"keep\"; rto_formula: \"linux\"; local_drop: \"hold\"; tsq_limit_bytes: Some(1048576); "
      "slow_start_exit: \"hystart++\""),
     {"cc": {"kind": "newreno"}, "recovery": "sack", "reordering": "none", "gate": "none", "prr": True,
      "limited_transmit": True, "sack_after_rto": "keep", "rto_formula": "linux", "local_drop": "hold",
      "tsq_limit_bytes": 1048576, "slow_start_exit": "hystart++"}),
    (("cc: Newreno; recovery: NewReno; reordering: None; gate: None; prr: false; limited_transmit: false; "
      "sack_after_rto: \"clear\"; rto_formula: \"rfc6298\"; local_drop: \"ignore\"; tsq_limit_bytes: None; "
      "slow_start_exit: Limited { max_ssthresh: 100 }"),
     {"cc": {"kind": "newreno"}, "recovery": "newreno", "reordering": "none", "gate": "none", "prr": False,
      "limited_transmit": False, "sack_after_rto": "clear", "rto_formula": "rfc6298", "local_drop": "ignore",
      "tsq_limit_bytes": "none", "slow_start_exit": {"kind": "limited", "max_ssthresh": 100}}),
]


@pytest.mark.parametrize("line, table", CASES)
def test_debug_lines_as_tables(line, table):
    assert readable(line) == table
    json.dumps(readable(line), allow_nan=False)  # valid JSON


def test_unreadable_text_is_kept():
    for line in ("cc: Cubic(Params { c: 0.4 ; recovery: NewReno", "something else", "cc: A; B"):
        assert readable(line) == line


def test_times_rounded_to_the_clock():
    # the clock counts ns: 30 s is 30e9 ticks; as a float sum the simulator reported
    # 30.000000000000004, which is 30.0 to 9 decimals; 0.1 + 0.2 = 0.30000000000000004 -> 0.3
    s = readable_summary({"sim_time_s": 30.000000000000004, "tcp_configs": {"traffic[0]": CASES[0][0]}})
    assert s["sim_time_s"] == 30.0 and s["tcp_configs"]["traffic[0]"] == CASES[0][1]
    assert readable_summary({"sim_time_s": 0.1 + 0.2})["sim_time_s"] == 0.3
    assert readable_summary({"sim_time_s": 1.234567891})["sim_time_s"] == 1.234567891  # whole ns kept


LINUX_HOST_PARTS = {"prr": True, "limited_transmit": True, "sack_after_rto": "keep", "rto_formula": "linux",
                  "local_drop": "hold", "tsq_limit_bytes": 1048576, "slow_start_exit": "none",
                  "slow_start_increment": "linux"}
LINUX_HOST_TEXT = ("prr True, limited_transmit True, sack_after_rto keep, rto_formula linux, local_drop hold, "
                   "tsq_limit_bytes 1048576, slow_start_exit none, slow_start_increment linux")


def run(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([EXE, "run", *args], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return r


def test_run_summary_json_and_terminal(tmp_path):
    # examples/dumbbell.toml: 8 NewReno flows s{i} -> d{i} (no cc set: the default NewReno,
    # with the default host's SACK recovery), 60 s; 8 access links each side, both directions: 32 host
    # links, and R1->R2, R2->R1 between the routers
    r = run(str(ROOT / "examples" / "dumbbell.toml"), "--out", str(tmp_path / "run"))
    s = json.loads((tmp_path / "run" / "summary.json").read_text())
    # Linux's host (the default): PRR, limited transmit, the scoreboard kept, Linux's RTO,
    # NIC refusals held, TSQ at tcp_limit_output_bytes 1 MiB, no HyStart for NewReno, slow start
    # counting every segment an ACK covers (tcp_slow_start)
    linux = LINUX_HOST_PARTS
    assert s["tcp_configs"] == {"traffic[0]": {"cc": {"kind": "newreno"}, "recovery": "sack", "reordering": "none",
                                               "gate": "none", **linux}}
    assert s["sim_time_s"] == 60.0
    out = r.stdout
    assert f"traffic[0]: newreno, recovery sack, reordering none, gate none, {LINUX_HOST_TEXT}" in out
    assert re.search(r"│ flow_id ┆ src ┆ dst ┆ cc ", out)
    shapes = [int(n) for n in re.findall(r"shape: \((\d+), 10\)", out)]
    links = pl.read_parquet(tmp_path / "run" / "links.parquet")
    host = links.filter(~pl.col("name").str.contains(r"^R\d->R\d$"))  # all but R1->R2, R2->R1
    # in this run no host link drops or marks: all 32 are left out
    assert host.height == 32 and host.filter((pl.col("drops") > 0) | (pl.col("marks") > 0)).height == 0
    assert shapes[-1] == 2 and "R1->R2" in out and "s0->R1" not in out
    assert "32 host link(s) without drops or marks not shown (--all-links shows every link)" in out
    r = run(str(ROOT / "examples" / "dumbbell.toml"), "--all-links")
    assert [int(n) for n in re.findall(r"shape: \((\d+), 10\)", r.stdout)][-1] == 34
    assert "not shown" not in r.stdout


def test_sweep_parquet_keeps_the_simulators_values(tmp_path):
    # summary.parquet is data: its tcp_configs stay the simulator's text and sim_time_s its
    # float; only summary.json is made readable
    out = tmp_path / "s"
    sweeps.sweep(ROOT / "examples" / "incast.toml", None, [1], out, workers=0, progress=False)
    (run_dir,) = [p.parent for p in out.rglob("summary.json")]
    pq = pl.read_parquet(run_dir / "summary.parquet")
    js = json.loads((run_dir / "summary.json").read_text())
    raw = json.loads(pq["tcp_configs"][0])
    assert all(isinstance(v, str) and v.startswith("cc: ") for v in raw.values())
    assert js["tcp_configs"] == {k: readable(v) for k, v in raw.items()}
    assert js["sim_time_s"] == round(pq["sim_time_s"][0], 9)


def test_tcp_in_one_line():
    # the cubic case: the kind, then its parameters; the other parts as "name value"
    assert tcp_text(CASES[1][1]) == ("cubic (c 0.4, beta 0.7, fast_convergence True, reno_friendly True, "
                                     "ssthresh_from flight), recovery newreno, reordering none, gate none")
    # an unset parameter (the preset's value applies) as "-"
    assert tcp_text(CASES[2][1]) == ("newreno, recovery sack, reordering dcr (tau_srtt 1.0, tau -, base first_dupack, "
                                     "grow_during_tau True, rearm_rto True), gate none")
    assert tcp_text("unreadable text") == "unreadable text"


def test_run_report_shows_the_tcp_table(tmp_path):
    d = tmp_path / "run"
    run(str(ROOT / "examples" / "dumbbell.toml"), "--out", str(d))
    r = subprocess.run([EXE, "report", str(d)], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    md = (d / "report.md").read_text()
    assert "## TCP" in md and f"| traffic[0] | newreno, recovery sack, reordering none, gate none, {LINUX_HOST_TEXT} |" in md
