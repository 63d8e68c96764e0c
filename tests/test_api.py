"""The Python API against independent truth: serialisation arithmetic, conservation,
determinism, and errors that name the field."""

import json
import math

import polars as pl
import pytest
import superpacket
from superpacket import ScenarioError


def one_flow(n_pkts: int = 10) -> dict:
    # s0 -1Gbps,25us-> R -100Mbps,25us-> d ; one flow of n_pkts full segments at t=0
    return {
        "name": "one-flow",
        "duration": "1s",
        "topology": {
            "kind": "star",
            "senders": 1,
            "sender_link": {"rate": "1Gbps", "delay": "25us"},
            "receiver_link": {"rate": "100Mbps", "delay": "25us"},
        },
        "tcp": {"init_cwnd": 10},
        "traffic": [{"kind": "flow", "from": "s0", "to": "d", "size_pkts": n_pkts}],
    }


def test_fct_of_ten_packet_flow_matches_hand_computation():
    res = superpacket.run(one_flow(10), seed=1)
    # SYN (40 B) s0->R: 320 ns + 25 us; R->d: 3.2 us + 25 us. SYN-ACK the same way back.
    syn = (320 + 25_000) + (3_200 + 25_000)
    handshake = 2 * syn
    # 10 data packets of 1500 B leave s0 back to back (12 us each on 1 Gbps); R's
    # 100 Mbps link (120 us each) is the bottleneck: the first packet reaches R after
    # 12 us + 25 us, then R serialises 10 packets back to back, the last arrives 25 us later.
    data = 12_000 + 25_000 + 10 * 120_000 + 25_000
    expect_ns = handshake + data
    fct = res.flows["fct_s"][0]
    assert round(fct * 1e9) == expect_ns


def test_results_are_dataframes_and_conserve_packets():
    res = superpacket.run(one_flow(50), seed=1)
    assert isinstance(res.flows, pl.DataFrame)
    assert isinstance(res.links, pl.DataFrame)
    assert res.summary["conservation"] == "ok"
    # every data packet sent by the flow was delivered or dropped (none left at the end)
    f = res.flows.row(0, named=True)
    assert f["pkts_sent"] == f["pkts_delivered"] + f["pkts_dropped"]
    assert f["bytes_received"] == 50 * 1460


def test_same_seed_identical_different_seed_differs():
    sc = one_flow(10)
    sc["traffic"] = [{"kind": "poisson", "from": "s0", "to": "d", "rate_per_s": 50, "size_pkts": 5}]
    a = superpacket.run(sc, seed=3)
    b = superpacket.run(sc, seed=3)
    c = superpacket.run(sc, seed=4)
    ja = a.flows.write_json()
    assert ja == b.flows.write_json()
    assert a.links.write_json() == b.links.write_json()
    assert ja != c.flows.write_json()


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"duratoin": "1s"}, "duratoin"),
        ({"topology": {"kind": "ring"}}, "topology"),
        ({"tcp": {"init_cwnd": "ten"}}, "tcp.init_cwnd"),
        ({"tcp": {"cc": "westwood"}}, "cc"),
        ({"topology": {**one_flow()["topology"], "receiver_link": {"rate": "10Gbs", "delay": "1ms"}}},
         "topology.receiver_link.rate"),
        ({"traffic": [{"kind": "flow", "from": "s0", "to": "nowhere", "size_pkts": 1}]}, "traffic[0].to"),
    ],
)
def test_bad_scenario_raises_with_field_name(patch, field):
    sc = one_flow()
    sc.update(patch)
    with pytest.raises(ScenarioError) as e:
        superpacket.run(sc)
    assert field in str(e.value)


def test_write_parquet_and_summary(tmp_path):
    res = superpacket.run(one_flow(10), seed=1)
    res.write(tmp_path)
    back = pl.read_parquet(tmp_path / "flows.parquet")
    assert back.equals(res.flows)
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["mean_fct_s"] == pytest.approx(res.flows["fct_s"][0])


@pytest.mark.parametrize("name", ["incast.toml", "incast-superpacket.toml", "dumbbell.toml", "riops-goodput.toml"])
def test_extension_gives_the_plain_release_binarys_results(root, examples, name):
    """The extension may be built with profile-guided optimisation (scripts/pgo-build.sh),
    which must change speed only: its results equal those of the plain release build of
    `superpacket-sim` (what `cargo test --release` builds), summary and flow table alike."""
    import subprocess

    subprocess.run(["cargo", "build", "-q", "--release", "-p", "superpacket-sim"], cwd=root, check=True)
    p = subprocess.run([str(root / "target/release/superpacket-sim"), str(examples / name), "3"],
                       capture_output=True, text=True, check=True)
    plain = json.loads(p.stdout)
    res = superpacket.run(examples / name, seed=3)
    assert json.loads(json.dumps(res.summary)) == plain["summary"]
    flows = res.flows.to_dict(as_series=False)

    def exact(xs: list) -> list:  # JSON has null where the table has NaN; nothing else differs
        return [None if isinstance(x, float) and math.isnan(x) else x for x in xs]

    for col, vals in plain["flows"].items():
        assert col in flows and exact(flows[col]) == exact(vals), col


def test_bench_reports_its_build():
    from superpacket import _core

    d = json.loads(_core.bench_p1(0.01))
    assert d["build"] in ("release", "release+pgo")


@pytest.mark.parametrize("name", ["incast.toml", "incast-superpacket.toml", "dumbbell.toml", "riops-goodput.toml"])
def test_tables_as_lists_or_buffers_are_the_same_frames(examples, name):
    """`_core` hands small tables over as lists and big ones (4096 rows on) as buffers;
    both must give the same DataFrame, types included."""
    from superpacket import _core, api

    text, fmt = api.load_scenario(examples / name)
    s = _core.Simulation(text, fmt, 2)
    s.run_until(s.duration_s)
    as_lists, as_buffers = s.results(10**9), s.results(0)
    assert as_lists["flows"]["flow_id"][0] == "list" and as_buffers["flows"]["flow_id"][0] == "u64"
    for t in ("flows", "links", "queue_series", "queue_counters", "flow_series"):
        a, b = api._frame(as_lists[t]), api._frame(as_buffers[t])
        assert a.schema == b.schema, t
        assert a.equals(b), t


def test_a_column_left_all_null_keeps_its_type(examples):
    """Bulk flows never finish: fct_s is all null, and still Float64 (a sweep
    concatenates runs where it is and where it is not)."""
    flows = superpacket.run(examples / "dumbbell.toml", seed=1).flows
    assert flows["fct_s"].null_count() == flows.height > 0
    assert flows.schema["fct_s"] == pl.Float64 and flows.schema["size_bytes"] == pl.Float64
    empty = superpacket.run({"name": "e", "duration": "1ms", "traffic": [],
                             "topology": {"kind": "dumbbell", "pairs": 1, "access": {"rate": "1Gbps", "delay": "1us"},
                                          "bottleneck": {"rate": "1Gbps", "delay": "1us"}}}).flows
    assert empty.height == 0 and empty.schema == flows.schema


def _staggered(**bulk):
    return {
        "duration": "5s",
        "topology": {"kind": "dumbbell", "pairs": 4, "access": {"rate": "100Mbps", "delay": "1ms"},
                     "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
        "traffic": [{"kind": "bulk", "from": "s{i}", "to": "d{i}", "count": 4, **bulk}],
    }


def test_start_interval_staggers_the_flows_of_one_entry():
    """Flow i of an entry starts at start + i x start_interval (+ its own jitter): four
    flows 1 s apart from 0.5 s start at 0.5, 1.5, 2.5, 3.5 s; with a 100 ms jitter each
    start lies in [0.5 + i, 0.6 + i); one 10 s apart from 0 never starts in a 5 s run
    past the first."""
    starts = superpacket.run(_staggered(start="0.5s", start_interval="1s")).flows["start_s"].to_list()
    assert starts == [0.5, 1.5, 2.5, 3.5]
    jittered = superpacket.run(_staggered(start="0.5s", start_interval="1s", start_jitter="100ms"))
    for i, s in enumerate(jittered.flows["start_s"].to_list()):
        assert 0.5 + i <= s < 0.6 + i
    apart = superpacket.run(_staggered(start_interval="10s")).flows
    assert apart.filter(pl.col("bytes_received") > 0)["flow_id"].to_list() == [0]


def test_no_start_interval_is_the_old_behaviour():
    """start_interval absent or "0s": the same run byte for byte (the jitter draws are the
    same either way)."""
    a = superpacket.run(_staggered(start_jitter="1s"), seed=3).flows
    b = superpacket.run(_staggered(start_jitter="1s", start_interval="0s"), seed=3).flows
    assert a.equals(b)


@pytest.mark.parametrize("patch,suggested", [
    ({"traffic": [{"kind": "bulk", "from": "s0", "to": "d0", "strat": "1s"}]}, "start"),
    ({"tcp": {"cc": "cubci"}}, "cubic"),
    ({"tcp": {"recovery": "sak"}}, "sack"),
])
def test_misspelt_names_get_a_suggestion(patch, suggested):
    """An unknown field, variant or name one or two edits from an allowed one names it."""
    with pytest.raises(ScenarioError, match=f"did you mean `{suggested}`"):
        superpacket.run({**_staggered(), **patch})


def test_units_in_any_case_and_numbers_told_their_unit():
    """"10mbps" is 10 Mbps and "1S" one second (the parser has no byte rates, so the case
    of a unit is never ambiguous); a bare number for a rate is refused with the string it
    would need."""
    sc = _staggered(start_interval="1S")
    sc["topology"]["bottleneck"]["rate"] = "10mbps"
    lower = superpacket.run(sc, seed=2).flows
    assert lower["start_s"].to_list() == [0.0, 1.0, 2.0, 3.0]
    assert lower.equals(superpacket.run(_staggered(start_interval="1s"), seed=2).flows)
    sc["topology"]["bottleneck"]["rate"] = 10_000_000
    with pytest.raises(ScenarioError, match=r'topology.bottleneck.rate: a rate as a string with a unit, '
                                            r'e.g. "100Mbps" \(got the number 10000000; .* "10000000bps"\)'):
        superpacket.run(sc)


@pytest.mark.parametrize("line,bad,message", [
    (3, 'recovery = "sak"', "tcp.recovery: unknown variant"),     # refused when read
    (6, "pairs = 0", "topology.pairs: must be 1..100000"),           # refused when built
    (13, 'strat = "1s"', "traffic[0].strat: unknown field"),         # inside [[traffic]]
])
def test_errors_in_a_scenario_file_name_its_line(tmp_path, line, bad, message):
    """A field's error read from a file ends with the line that sets it, counted in the
    file as written here (line 1 is `duration`)."""
    lines = ['duration = "1s"', "[tcp]", 'recovery = "sack"', "[topology]", 'kind = "dumbbell"', "pairs = 1",
             'access = { rate = "100Mbps", delay = "1ms" }', 'bottleneck = { rate = "10Mbps", delay = "10ms" }',
             "[[traffic]]", 'kind = "bulk"', 'from = "s0"', 'to = "d0"', 'start = "1s"']
    lines[line - 1] = bad
    f = tmp_path / "bad.toml"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(ScenarioError) as e:
        superpacket.run(f)
    assert message in str(e.value) and str(e.value).endswith(f"(line {line})"), str(e.value)


def _one_flow(access_queue=None, bottleneck=None, access_rate="10Mbps"):
    access = {"rate": access_rate, "delay": "1ms", **({"queue": access_queue} if access_queue else {})}
    return {"duration": "3s",
            "topology": {"kind": "dumbbell", "pairs": 1, "access": access,
                         "bottleneck": bottleneck or {"rate": "1Gbps", "delay": "5ms"}},
            "traffic": [{"kind": "bulk", "from": "s0", "to": "d0"}]}


def test_warnings_name_settings_that_likely_do_not_mean_what_was_meant(tmp_path):
    """A RED max_th at or above its buffer's limit warns, naming the field (1 Gb/s hosts,
    the RED queue the 10 Mb/s bottleneck's); a 10 Mb/s host with a 2-packet NIC queue in
    front of a 1 Gb/s network loses every dropped packet at its own NIC (nothing after it
    is slower) under the ns-2 host, which warns too; a plain run has none."""
    red = {"rate": "10Mbps", "delay": "5ms",
           "queue": {"kind": "red", "limit": 50, "min_th": 10, "max_th": 60, "p_max": 0.1}}
    w = superpacket.run(_one_flow(bottleneck=red, access_rate="1Gbps")).summary["warnings"]
    assert len(w) == 1 and w[0].startswith("topology.bottleneck.queue.max_th: 60 is at or above the queue's "
                                           "limit 50"), w
    ns2 = _one_flow(access_queue={"kind": "droptail", "limit": 2})
    ns2["tcp"] = {"host": "ns2"}  # a host whose NIC loses what it refuses
    nic = superpacket.run(ns2).summary
    assert nic["drops"] > 0 and nic["sender_drops"] == nic["drops"]
    assert any(x.startswith(f"most drops ({nic['drops']} of {nic['drops']})") for x in nic["warnings"])
    # Linux's host (the default) holds refused segments unsent: refusals, no drops, no
    # warning. TCP Small Queues keep a flow's data below the socket to about 1 ms at its
    # rate (2 packets while its window is small), so the queue refuses less often than
    # without them
    linux = superpacket.run(_one_flow(access_queue={"kind": "droptail", "limit": 2})).summary
    assert linux["drops"] == 0 and linux["sender_drops"] == 0
    assert "warnings" not in linux
    no_tsq = _one_flow(access_queue={"kind": "droptail", "limit": 2})
    no_tsq["tcp"] = {"tsq": False}
    held = superpacket.run(no_tsq).summary
    assert held["drops"] == 0 and held["sender_drops"] == 0 and held["nic_refusals"] > linux["nic_refusals"]
    assert "warnings" not in held
    plain = {"rate": "10Mbps", "delay": "5ms", "queue": {"kind": "droptail", "limit": 50}}
    assert "warnings" not in superpacket.run(_one_flow(bottleneck=plain, access_rate="1Gbps")).summary
    f = tmp_path / "red.toml"
    from superpacket import _toml
    f.write_text(_toml.dumps(_one_flow(bottleneck=red, access_rate="1Gbps")))
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "superpacket.cli", "run", str(f), "--json"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0 and "superpacket: warning: topology.bottleneck.queue.max_th: 60" in r.stderr, r.stderr
    assert json.loads(r.stdout)["summary"]["warnings"] == w
