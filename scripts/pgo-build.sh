#!/usr/bin/env bash
# Builds the Python extension (crates/py) into the venv with profile-guided optimisation
# (rustc's PGO, https://doc.rust-lang.org/rustc/profile-guided-optimization.html):
#   1. an instrumented extension (-Cprofile-generate) runs the training set: benchmark
#      P1 for 1 simulated second (TCP NewReno, DropTail, the event list) and every
#      scenario in examples/ (super-packet router, RED / RIO-PS, web traffic). The
#      extension itself is trained, not the `superpacket-sim` binary: a profile matches
#      functions by their symbol names, which differ between the two crate graphs;
#   2. llvm-profdata (rustup's llvm-tools, the one that matches rustc's LLVM) merges the
#      counts;
#   3. maturin builds the extension with -Cprofile-use.
# PGO changes code layout and inlining only, never results: tests/test_api.py compares
# the extension's output with the plain release binary's. Without llvm-profdata (the
# component cannot be fetched) it falls back to a plain release build and says so.
# `superpacket bench --json` reports which build ran ("build": "release+pgo").
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$(realpath "${VENV:-.venv}")
PGO=$(pwd)/target/pgo
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
    timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
    echo "pgo-build: no llvm-profdata (rustup component llvm-tools): plain release build" >&2
    VIRTUAL_ENV=$VENV "$VENV/bin/maturin" develop --release -q
    exit 0
fi
rm -rf "$PGO/raw"
RUSTFLAGS="-Cprofile-generate=$PGO/raw" CARGO_TARGET_DIR="$PGO/gen" \
    VIRTUAL_ENV=$VENV "$VENV/bin/maturin" develop --release -q
"$VENV/bin/python" - <<'PY'
import glob
import superpacket
from superpacket import _core
_core.bench_p1(1.0)
for f in sorted(glob.glob("examples/*.toml")):
    superpacket.run(f, seed=1, progress=False)
PY
"$profdata" merge -o "$PGO/merged.profdata" "$PGO/raw"
RUSTFLAGS="-Cprofile-use=$PGO/merged.profdata" SUPERPACKET_BUILD=release+pgo CARGO_TARGET_DIR="$PGO/use" \
    VIRTUAL_ENV=$VENV "$VENV/bin/maturin" develop --release -q
echo "pgo-build: extension built with profile-guided optimisation" >&2
