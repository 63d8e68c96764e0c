#!/usr/bin/env python3
"""`make validate-ns3`: builds the ns-3 programs of validation/ns3/ against the `ns3`
wheel installed in the project's environment (its headers and libraries ship in it),
runs each case for every seed and stores the figures in
python/superpacket/validation/ns3_results.json, which `superpacket validate` reads.

    python scripts/validate_ns3.py [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "validation" / "ns3"
BUILD = SRC / "build"
LIBS = ("core", "network", "internet", "point-to-point", "applications", "traffic-control", "stats", "bridge",
        "mobility")


def ns3_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("ns3")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("validate-ns3: the ns3 wheel is not installed in this environment (make validate-ns3 installs it)")
    return Path(next(iter(spec.submodule_search_locations)))


def build(program: str, ns: Path) -> Path:
    exe = BUILD / Path(program).stem
    BUILD.mkdir(parents=True, exist_ok=True)
    lib = ns / "lib64"
    version = next(lib.glob("libns3.*-core.so")).name.split("-")[0].removeprefix("lib")
    cmd = ["g++", "-std=c++20", "-O2", "-w", f"-I{ns / 'include'}", "-o", str(exe), str(SRC / program),
           f"-L{lib}", *(f"-l{version}-{m}" for m in LIBS), f"-Wl,-rpath,{lib}"]
    subprocess.run(cmd, check=True)
    return exe


def main() -> int:
    sys.path.insert(0, str(ROOT / "python"))
    from superpacket.validation import ns3

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    root = ns3_root()
    out: dict[str, object] = {}
    for name, case in ns3.CASES.items():
        exe = build(case["program"], root)

        def one(seed: int, exe: Path = exe, case: dict = case) -> tuple[int, dict]:
            p = subprocess.run([str(exe), *ns3.ns3_args(case["args"], seed)], capture_output=True, text=True,
                               check=True)
            return seed, json.loads(p.stdout.strip().splitlines()[-1])

        with ThreadPoolExecutor(a.jobs) as ex:
            seeds = dict(ex.map(one, case["seeds"]))
        out[name] = {"ns3": ns3.NS3_VERSION, "program": f"validation/ns3/{case['program']}", "args": case["args"],
                     "seeds": {str(s): seeds[s] for s in case["seeds"]}}
        print(f"{name}: {len(seeds)} seeds", file=sys.stderr)
    ns3.RESULTS.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(f"written: {ns3.RESULTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
