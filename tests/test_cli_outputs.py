"""What the command line tells a person beyond the results: its version, and progress on
stderr for long commands (plain lines when stderr is not a terminal)."""

import subprocess
import sys
import tomllib
from pathlib import Path

import superpacket

ROOT = Path(__file__).resolve().parent.parent
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
