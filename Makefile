# superpacket: `make run` (set-up + headline demo), `make test` (set-up + every test),
# `make docs` (the documentation site in site/).
# Each target does only the set-up not already done (stamp files in .venv).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
RUST_SRC := $(shell find crates -name '*.rs' -o -name 'Cargo.toml') Cargo.toml Cargo.lock
PY_SRC := $(shell find python -name '*.py' -o -name '*.pyi') pyproject.toml
export CARGO_TERM_COLOR := never

.PHONY: install run test bench lint fuzz clean schema docs validate validate-ns3

install: $(VENV)/.built $(VENV)/.chromium $(VENV)/.tshark target/release/superpacket-emu

$(PY):
	python3 -m venv $(VENV)

$(VENV)/.deps: requirements.txt | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

# headless Chromium checks the HTML reports (tests/reports/test_report.py); Debian's package, as root
$(VENV)/.chromium: | $(PY)
	command -v chromium >/dev/null || { apt-get update -q && { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	  || { DEBIAN_FRONTEND=noninteractive apt-get -f install -y -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }; }; }
	touch $@

# tshark reads the packet traces back (tests/test_pcap.py); Debian's package, as root,
# without the setuid dumpcap question
$(VENV)/.tshark: | $(PY)
	command -v tshark >/dev/null || { echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q tshark; }
	touch $@

# the extension, profile-guided (scripts/pgo-build.sh; a plain release build where
# rustup's llvm-tools cannot be had)
$(VENV)/.built: $(VENV)/.deps $(RUST_SRC) $(PY_SRC) scripts/pgo-build.sh
	VENV=$(VENV) scripts/pgo-build.sh
	touch $@

# the emulator's router (`superpacket emulate`, crates/emu); the package finds it in
# target/release (or $$SUPERPACKET_EMU, or on PATH)
target/release/superpacket-emu: $(RUST_SRC)
	cargo build --release -p superpacket-emu
	touch $@

# the headline demo: super-packets against DropTail on short flows beside long ones
# (Li, "Benefits and Practicality of Super-Packets", section 4.3), then the incast
# example's per-flow table
run: install
	$(VENV)/bin/superpacket reproduce short-long --seeds 5
	$(VENV)/bin/superpacket run examples/incast.toml

# every test: Rust, Python (tests/test_docs.py and tests/test_outputs.py check the
# generated reference pages and the documentation's references), the tutorial notebook
# (nbmake), and the documentation site built with --strict (broken links and anchors
# fail it) into a git-ignored folder
test: install
	python3 scripts/check_layers.py
	cargo test --release --workspace --exclude superpacket-py
	$(VENV)/bin/pytest -q tests
	$(VENV)/bin/pytest -q -p no:cacheprovider --nbmake docs/tutorial.ipynb
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -q -d .site-check

# the documentation site (MkDocs Material, mkdocstrings) into site/: the CLI and outputs
# reference pages regenerated first (scripts/gen_docs.py)
docs: install
	$(PY) scripts/gen_docs.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# the validation suite at full scale into validation/ (the docs' Validation page is drawn
# from validation/results.json by scripts/gen_docs.py)
validate: install
	$(VENV)/bin/superpacket validate --out validation
	$(PY) scripts/gen_docs.py

# the ns-3 side of the validation suite: the programs of validation/ns3/ built against the
# ns-3 wheel from PyPI (pinned; headers and libraries ship in it) and run, their figures
# stored in python/superpacket/validation/ns3_results.json, and the comparisons that do
# not agree re-run into ns3_left_out.json (the validation page's "What does not agree");
# then the suite (minutes, not part of make test, which compares against the stored figures)
NS3_VERSION := 3.44.post0
validate-ns3: install
	$(PY) -m pip install -q --disable-pip-version-check ns3==$(NS3_VERSION)
	$(PY) scripts/validate_ns3.py
	$(PY) scripts/ns3_left_out.py
	$(MAKE) validate

bench: install
	$(VENV)/bin/superpacket bench
	cargo bench -p superpacket-sim --bench event_list -- --warm-up-time 1 --measurement-time 3

# the scenario schema reference and its JSON Schema, generated from crates/sim/src/scenario/
# (schema.rs); crates/sim/tests/schema.rs fails when the checked-in files are stale
schema:
	cargo run -q --release -p superpacket-sim -- --schema-md > docs/schema.md
	cargo run -q --release -p superpacket-sim -- --schema-json > docs/scenario.schema.json

lint: install
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests
	$(VENV)/bin/mypy python/superpacket
	$(VENV)/bin/python -m mypy.stubtest superpacket._core

# Fuzzing (README "Fuzzing"): a smoke pass of FUZZ_SECONDS per cargo-fuzz (libFuzzer)
# target in fuzz/, its own workspace, starting from the checked-in corpus
# fuzz/corpus/TARGET (new inputs go to the untracked fuzz/work/TARGET). Needs
# cargo-fuzz (installed here, pinned) and a nightly rustc for its -Z flags: rustup's
# nightly if it is there or can be installed, else the stable rustc with
# RUSTC_BOOTSTRAP=1 (where no other toolchain can be fetched). Neither `make test`
# nor `make install` needs any of this.
CARGO_FUZZ_VERSION := 0.13.2
FUZZ_SECONDS := 30
FUZZ_TARGETS := sp_option admission

fuzz:
	cargo fuzz --version 2>/dev/null | grep -qx 'cargo-fuzz $(CARGO_FUZZ_VERSION)' \
	  || cargo install cargo-fuzz --locked --version $(CARGO_FUZZ_VERSION)
	if rustup run nightly rustc -V >/dev/null 2>&1 \
	   || timeout 600 rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then \
	  tc=nightly; boot=; \
	else \
	  echo "no nightly toolchain: stable rustc with RUSTC_BOOTSTRAP=1"; tc=stable; boot=RUSTC_BOOTSTRAP=1; \
	fi; \
	cd fuzz && for t in $(FUZZ_TARGETS); do \
	  mkdir -p work/$$t && env $$boot cargo +$$tc fuzz run $$t work/$$t corpus/$$t -- \
	    -max_total_time=$(FUZZ_SECONDS) -workers=1 -jobs=1 -print_final_stats=1 || exit 1; \
	done

clean:
	rm -rf $(VENV) target fuzz/target fuzz/work site .site-check
