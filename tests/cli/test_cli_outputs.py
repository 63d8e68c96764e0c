"""What the command line tells a person beyond the results: its version, and progress on
stderr for long commands (plain lines when stderr is not a terminal)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import superpacket

ROOT = Path(__file__).resolve().parents[2]
EXE = str(Path(sys.executable).parent / "superpacket")


def sp(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], capture_output=True, text=True, check=False)


def test_version_is_pyprojects():
    # the one source: pyproject.toml's [project] version, read here with tomllib
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert superpacket.__version__ == want
    r = sp("--version")
    assert r.returncode == 0 and r.stdout == f"superpacket {want}\n", r


def test_version_from_a_source_tree_never_installed(monkeypatch):
    # no package metadata: pyproject.toml beside the package's source
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert superpacket._version() == want


# ---- progress -------------------------------------------------------------------------------

class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_progress_lines_by_hand(monkeypatch, capsys):
    from superpacket import progress

    clock = FakeClock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    monkeypatch.setattr(progress.sys.stderr, "isatty", lambda: False)
    progress.lines_when_piped(True)
    try:
        with progress.Progress(4, "runs") as p:
            assert p.mode == "lines"
            clock.t += 10.0
            p.update(1, "a seed 1")  # 1 of 4 in 10 s: 10 s a run, 3 runs left: about 30 s
            clock.t += 1.0
            p.update(1)  # 1 s after the last line: under LINE_EVERY_S, no line
            clock.t += 79.0
            p.update(1)  # 3 in 90 s: 30 s a run, 1 left: 30 s
            clock.t += 45.0
            p.update(1)  # the last: always a line, no estimate
    finally:
        progress.lines_when_piped(False)
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.splitlines() == [
        "superpacket: runs 1/4 runs done (25 %; a seed 1), 10 s elapsed, about 30 s left",
        "superpacket: runs 3/4 runs done (75 %), 1 min 30 s elapsed, about 30 s left",
        "superpacket: runs 4/4 runs done (100 %), 2 min 15 s elapsed",
    ]
    assert [progress.clock(x) for x in (0.2, 0.99, 1.0, 59.4, 65.0, 3720.0)] == \
        ["under 1 s", "under 1 s", "1 s", "59 s", "1 min 05 s", "1 h 02 min"]
    # the Python API off a terminal: quiet unless asked
    assert progress.choose(None) is None and progress.choose(False) is None and progress.choose(True) == "bar"


def test_reproduce_piped_prints_progress_lines_on_stderr():
    # jumbo: 4 variants x 2 seeds = 8 runs; stderr is a pipe here, so plain lines, the last
    # one 8 of 8; none on stdout
    r = sp("reproduce", "jumbo", "--seeds", "2", "--json")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines and all(ln.startswith("superpacket: runs ") for ln in lines), lines
    assert lines[-1].startswith("superpacket: runs 8/8 runs done (100 %")
    assert "superpacket:" not in r.stdout


def test_sweep_piped_prints_progress_lines(tmp_path):
    # 2 limits x 2 seeds = 4 runs
    r = sp("sweep", str(ROOT / "examples" / "incast.toml"), "--param", "topology.receiver_link.queue.limit=20,50",
           "--seeds", "2", "--out", str(tmp_path / "s"), "--workers", "0")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("superpacket: sweep ")]
    assert lines and lines[-1].startswith("superpacket: sweep 4/4 runs done (100 %"), r.stderr


def test_long_run_progress_lines_after_3_s(monkeypatch, capsys):
    # a run of 100 slices, each 0.125 s of wall time on a fake clock (exact in binary):
    # nothing until past 3 s (slice 25, 3.125 s), then lines at most every 2 s (16 slices:
    # 41, 57, 73, 89) and the last at 100 %
    from superpacket import api, progress

    clock = FakeClock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    monkeypatch.setattr(api.time, "perf_counter", clock)
    monkeypatch.setattr(progress.sys.stderr, "isatty", lambda: False)

    class Sim:
        duration_s = 50.0

        def run_until(self, t: float) -> None:
            clock.t += 0.125

    progress.lines_when_piped(True)
    try:
        api._run_with_progress(Sim(), None)
    finally:
        progress.lines_when_piped(False)
    lines = capsys.readouterr().err.splitlines()
    # slice 25: 3.125 s elapsed ("3 s"), 25 % done, 12.5 of 50 simulated s; 0.125 s a slice,
    # 75 left: 9.375 s, "9 s"
    assert lines[0] == "superpacket: simulating 25 % done (12.5 of 50 simulated s), 3 s elapsed, about 9 s left"
    assert [ln.split(" % done")[0].rsplit(" ", 1)[1] for ln in lines] == ["25", "41", "57", "73", "89", "100"]
    # 100 slices x 0.125 = 12.5 s, printed "12 s" (format rounds half to even)
    assert lines[-1] == "superpacket: simulating 100 % done (50 of 50 simulated s), 12 s elapsed"


def test_reproduce_claim_numbers_agree_with_the_words():
    # each claim judged on a cut in % (improvement_pct = (droptail - ours) / droptail x 100)
    # prints it unsigned beside "below" (>= 0) or "above" (< 0): never "HOLDS (-796.8 %)"
    import json

    data = json.loads(sp("reproduce", "incast", "--seeds", "1", "--json").stdout)
    out = sp("reproduce", "incast", "--seeds", "1").stdout
    cuts = [c for c in data["claims"] if "improvement_pct" in c]
    assert len(cuts) == 3  # superpacket and ideal in the paper regime, superpacket in the datacenter one
    for c in cuts:
        x = c["improvement_pct"]
        line = next(ln for ln in out.splitlines() if ln.startswith(f"claim: {c['claim']}:"))
        assert f"({abs(x):.1f} % {'below' if x >= 0 else 'above'} droptail's)" in line, (x, line)
        assert "(-" not in line
