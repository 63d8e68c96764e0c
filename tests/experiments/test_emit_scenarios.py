"""`superpacket reproduce NAME --emit-scenarios DIR`: each built-in experiment's scenarios
as TOML files a user can start from, written without running anything.

The truth the files are checked against is the experiment's own run: the scenario dicts
it hands to `superpacket.api.run` (caught by a wrapper that still runs them), and, for
one experiment, the flows table of its run of a variant beside the flows table of
`superpacket run` of the emitted file.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import superpacket
from superpacket import _core, _toml, api, cli
from superpacket.experiments import EXPERIMENTS, emit, short_long


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_experiment_emits_valid_scenarios(name: str, tmp_path: Path, capsys, monkeypatch) -> None:
    def no_run(*_a, **_k):  # the command must not run a simulation
        raise AssertionError("a simulation ran")

    monkeypatch.setattr(api, "_run_with_progress", no_run)
    assert cli.main(["reproduce", name, "--emit-scenarios", str(tmp_path / "sc")]) == 0
    printed = capsys.readouterr().out
    files = sorted((tmp_path / "sc").glob("*.toml"))
    assert files, "no file written"
    runs = emit.planned_runs(EXPERIMENTS[name])
    variants = {r.variant for r in runs}
    # one file per distinct scenario: at least one per variant, at most one per run
    assert len(variants) <= len(files) <= len(runs)
    for f in files:
        assert str(f) in printed
        text, fmt = superpacket.load_scenario(f)
        assert fmt == "toml"
        _core.validate(text)  # the simulator's schema accepts it
        sc = _toml.loads(text)
        # the file is one of the scenarios the experiment runs, with the seed it runs it with
        body = {k: v for k, v in sc.items() if k != "seed"}
        same = [r for r in runs if r.seed == sc["seed"] and r.scenario == body]
        assert same, f"{f.name}: not a scenario the experiment runs"


def test_the_emitted_file_runs_as_the_experiment_runs_it(tmp_path: Path, monkeypatch) -> None:
    """short-long, seed 2: the experiment's own flows table of each variant equals the one
    `superpacket run` of the emitted file writes."""
    seen: dict[str, pl.DataFrame] = {}
    real = api.run

    def spy(scenario, seed=None, **kw):
        res = real(scenario, seed=seed, **kw)
        seen[scenario["name"]] = res.flows
        return res

    monkeypatch.setattr(api, "run", spy)
    short_long.run(seeds=[2])
    monkeypatch.setattr(api, "run", real)
    assert len(seen) == 2
    assert cli.main(["reproduce", "short-long", "--seeds", "2..2", "--emit-scenarios", str(tmp_path / "sc")]) == 0
    for f in sorted((tmp_path / "sc").glob("*.toml")):
        out = tmp_path / f.stem
        assert cli.main(["run", str(f), "--out", str(out)]) == 0
        ran = pl.read_parquet(out / "flows.parquet")
        name = json.loads((out / "summary.json").read_text())["name"]
        assert json.loads((out / "summary.json").read_text())["seed"] == 2
        assert ran.height > 0
        assert ran.equals(seen[name], null_equal=True), f"{f.name}: flows differ from the experiment's run"


def test_per_seed_scenarios_get_a_file_each(tmp_path: Path) -> None:
    """lion records the cwnd series in its first seed's runs only: that scenario differs
    from the other seeds', so each variant has two files, named by the first seed of each."""
    runs = emit.planned_runs(EXPERIMENTS["lion"], seeds=[4, 5, 6])
    files = emit.write_scenarios(runs, tmp_path, "lion", "superpacket reproduce lion --seeds 4..6")
    variants = {r.variant for r in runs}
    assert len(files) == 2 * len(variants)
    by_seed = {f.seeds for f in files}
    assert by_seed == {(4,), (5, 6)}
    for f in files:
        sc = _toml.loads(f.path.read_text())
        assert sc["seed"] == f.seeds[0]
        assert f.path.name.endswith(f".seed-{f.seeds[0]}.toml")
        assert ("sample_flows" in sc.get("output", {})) == (f.seeds == (4,))


def test_refusals(tmp_path: Path, capsys) -> None:
    d = tmp_path / "sc"
    assert cli.main(["reproduce", "short-long", "--emit-scenarios", str(d)]) == 0
    before = {p: p.read_text() for p in d.iterdir()}
    # a second time into the same folder: nothing replaced
    assert cli.main(["reproduce", "short-long", "--emit-scenarios", str(d)]) == cli.EXIT_BAD_INPUT
    assert "exists" in capsys.readouterr().err
    assert {p: p.read_text() for p in d.iterdir()} == before
    assert cli.main(["reproduce", "short-long", "--emit-scenarios", str(tmp_path / "x"), "--json"]) == 2
    assert "--json does not apply" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_file_stems_are_readable() -> None:
    assert emit.file_stem("none/0/on") == "none_0_on"
    assert emit.file_stem("incast/t=5") == "incast_t=5"
    assert emit.file_stem("droptail-1.25") == "droptail-1.25"
