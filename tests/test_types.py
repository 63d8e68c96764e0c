"""The type check `make lint` runs, enforced by `make test` too: mypy over the package
(pyproject.toml [tool.mypy]: strict) and mypy's stubtest of the compiled extension
against _core.pyi (every name it exports, every signature and default). mypy is pinned in
requirements.txt. Both run at once, each in its own process (about 20-40 s together)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _start(*args: str) -> subprocess.Popen[str]:
    # superpacket and its extension from this source tree, whatever the interpreter has installed;
    # each run its own mypy cache: the two run at once, and two writers of one fresh cache
    # can crash mypy (an INTERNAL ERROR seen on a fresh clone)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "python"),
                                                                     os.environ.get("PYTHONPATH")])),
           "MYPY_CACHE_DIR": str(ROOT / ".mypy_cache" / args[0])}
    return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_mypy_and_stubtest_pass():
    mypy = _start("mypy", "python/superpacket")
    stubtest = _start("mypy.stubtest", "superpacket._core")
    out_mypy, _ = mypy.communicate(timeout=600)
    out_stub, _ = stubtest.communicate(timeout=600)
    assert mypy.returncode == 0, out_mypy
    assert out_mypy.strip().startswith("Success: no issues found"), out_mypy
    assert stubtest.returncode == 0, out_stub
    assert "Success: no issues found in 1 module" in out_stub, out_stub
