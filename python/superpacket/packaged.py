"""The example scenarios that ship inside the package (`superpacket/examples/*.toml`),
found through `importlib.resources` wherever the package is installed, so that
`superpacket run incast` and `superpacket list` work outside the source tree too. (In
the repository, `examples/` is the same folder.)"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def examples_dir() -> Path:
    """The folder holding the packaged example scenarios."""
    return Path(str(resources.files("superpacket").joinpath("examples")))


def examples() -> dict[str, Path]:
    """Example name (the file's stem: `incast`) -> its file, sorted by name."""
    d = examples_dir()
    return {p.stem: p for p in sorted(d.glob("*.toml"), key=lambda p: p.stem)} if d.is_dir() else {}


def description(path: Path) -> str:
    """The first comment line of an example: what it is."""
    return next((ln[2:].strip() for ln in path.read_text().splitlines() if ln.startswith("# ")), "")


def resolve(scenario: str) -> str:
    """A scenario argument of the command line: a file that exists is itself; otherwise
    the name of a packaged example (`incast`, or `incast.toml`) is that example's file;
    anything else is returned as given (the error then names it)."""
    p = Path(scenario)
    if p.exists() or p.parent != Path("."):
        return scenario
    found = examples().get(p.stem if p.suffix == ".toml" else p.name)
    return str(found) if found is not None else scenario
