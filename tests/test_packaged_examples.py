"""The example scenarios ship inside the package and are found through
importlib.resources, not through the repository: a copy of the package in a folder
outside the repository, run from another folder, still lists and runs them by name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import superpacket
from superpacket import packaged

ROOT = Path(__file__).resolve().parent.parent


def test_the_examples_are_package_data() -> None:
    d = packaged.examples_dir()
    assert d == Path(str(resources.files("superpacket"))) / "examples"
    assert d.parent == Path(superpacket.__file__).parent
    names = set(packaged.examples())
    assert {"incast", "dumbbell"} <= names
    # the repository's examples/ is the same folder (what the docs and tests refer to)
    assert (ROOT / "examples").resolve() == d.resolve()
    assert {p.stem for p in (ROOT / "examples").glob("*.toml")} == names


def test_resolve_prefers_a_file_then_an_example(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert packaged.resolve("incast") == str(packaged.examples()["incast"])
    assert packaged.resolve("incast.toml") == str(packaged.examples()["incast"])
    assert packaged.resolve("no-such") == "no-such"
    assert packaged.resolve("sub/incast") == "sub/incast"  # a path is never an example's name
    (tmp_path / "incast").write_text("")
    assert packaged.resolve("incast") == "incast"  # a file of that name wins


def test_a_copy_installed_elsewhere_finds_its_examples(tmp_path: Path) -> None:
    site = tmp_path / "site"
    src = Path(superpacket.__file__).parent
    shutil.copytree(src, site / "superpacket", ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "work"
    work.mkdir()
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}

    def sp(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "superpacket.cli", *args], cwd=work, env=env,
                              capture_output=True, text=True, check=False)

    ls = sp("list")
    assert ls.returncode == 0, ls.stderr
    assert f"the files are in {site / 'superpacket' / 'examples'}" in ls.stdout
    listed = [ln.split()[0] for ln in ls.stdout.split("built-in experiments")[0].splitlines()[1:]]
    assert listed == sorted(packaged.examples())
    r = sp("run", "incast", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # examples/incast.toml: 10 senders with one flow each
    assert out["scenario"] == "incast-droptail" and len(out["flows"]) == 10
    sw = sp("sweep", "dumbbell", "--seeds", "1", "--workers", "0", "--param", "duration=0.1s",
            "--out", str(tmp_path / "sweep"))
    assert sw.returncode == 0, sw.stderr
    base = json.loads((tmp_path / "sweep" / "sweep.json").read_text())["scenario"]
    assert base["name"] == "dumbbell"
    bad = sp("run", "no-such-example")
    assert bad.returncode == 2
    assert "packaged examples: dumbbell," in bad.stderr
