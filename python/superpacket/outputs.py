"""What every output of a run means: each column of each table and each summary key,
with its unit and definition.

This module is the one place these definitions live. docs/reference/outputs.md is
generated from it (`python scripts/gen_docs.py`), and tests/test_outputs.py runs
scenarios and checks that every column and key a run writes is defined here and that
every one defined here is written.

A run (`superpacket.run`, `superpacket run --out DIR`, every run of a sweep) gives these
tables, as `Results` attributes and as `DIR/<table>.parquet`:

- `flows`: one row per TCP flow;
- `links`: one row per link direction;
- `queue_series`: the sampled queue length of the links in `[output] sample_queues`;
- `queue_counters`: the counters of each queue discipline and edge classifier;
- `flow_series`: the sampled state of every TCP flow (`[output] sample_flows`);
- `sources`: one row per non-TCP source (cbr, onoff, mbs_probe, sp_attack);
- `probe_trains`: one row per train an `mbs_probe` sent;
- `monitor`: the high-frequency monitor of one link (`[output] monitor`);

and a summary (`Results.summary`, `DIR/summary.json`).

Times are simulated time in seconds from the start of the run; counts are packets unless
the name says bytes; rates are bits per second. "Null" is a missing value (`None`, a
Parquet null).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    """One column of a table or one key of the summary."""

    name: str
    #: "s", "bytes", "packets", "bit/s", "" (no unit) ...
    unit: str
    #: "int", "float", "float or null", "string", "bool", "object", ...
    type: str
    definition: str


@dataclass(frozen=True)
class Table:
    name: str
    #: When the run writes rows (the table is always written, with its columns).
    rows: str
    columns: tuple[Output, ...]


def _c(name: str, unit: str, type_: str, definition: str) -> Output:
    return Output(name, unit, type_, " ".join(definition.split()))


#: `links.drops_<reason>`: the reasons a queue drops a packet (crates/sim/src/queue).
DROP_REASONS: tuple[tuple[str, str], ...] = (
    ("overflow", "the buffer was full (DropTail, or RED's hard limit)"),
    ("red_early", "RED's early (probabilistic) drop"),
    ("red_forced", "RED's forced drop: the average queue above max_th (above 2 x max_th with `gentle`)"),
    ("random_loss", "the link's independent random loss (`loss`)"),
    ("sp_threshold", ("super-packet admission: a normal packet or a new super-packet while the queue "
                     "holds t or more packets")),
    ("sp_buffer_full", ("super-packet admission: an admitted super-packet's later packet while the queue "
                       "holds buffSize")),
    ("sp_not_admitted", "super-packet admission: a later packet of a super-packet this router did not admit"),
    ("sp_bloom_false_positive", "super-packet admission: the Bloom filter matched but the table has no entry"),
    ("sp_outstanding_exhausted", ("super-packet admission: the (src, dst) pair's outstanding count was "
                                 "already zero")),
    ("sp_table_full", "super-packet admission: the state table was full (its memory bound)"),
    ("sp_bad_header", "super-packet admission: a malformed super-packet header"),
    ("sp_source_cap", "super-packet admission: the per-source cap on reserved packets refused it"),
    ("sp_port_quota", ("super-packet admission: the packet's ingress port already holds its share of "
                      "the state table (`port_share`)")),
    ("source_invalid", ("source validation (`source_validation`): the router does not accept the "
                       "packet's source address on the port it came in by; counted on the link it "
                       "would have left by")),
)

FLOWS = Table("flows", "one row per TCP flow, in `flow_id` order, finished or not", (
    _c("flow_id", "", "int", "The flow's number, from 0, in the order the run creates flows. "
       "`flow_series.flow_id` refers to it."),
    _c("src", "", "string", "The sending node's name."),
    _c("dst", "", "string", "The receiving node's name."),
    _c("cc", "", "string", "The flow's congestion control (`newreno`, `cubic`, `dctcp`, ...); its "
       "parameters are under the summary's `tcp_configs`."),
    _c("bulk", "", "bool", "True for a long-lived flow that never runs out of data (traffic kind `bulk`): "
       "it has no size and never completes."),
    _c("size_bytes", "bytes", "float or null", "Payload bytes the flow transfers (headers not counted). "
       "Null for a bulk flow."),
    _c("start_s", "s", "float", "When the sender sends its SYN."),
    _c("end_s", "s", "float or null", "When the receiver held every byte of the flow. Null if it did not "
       "within the run (and always for a bulk flow)."),
    _c("fct_s", "s", "float or null", "Flow completion time: `end_s - start_s`, from the SYN until the "
       "receiver holds every byte (the handshake included). Null when `end_s` is."),
    _c("ideal_fct_s", "s", "float or null", "The completion time of the same flow alone on the empty "
       "network with a window that never limits it: the handshake, then the data as a train of full "
       "packets sent back to back, stored and forwarded at every hop. Null for a bulk flow."),
    _c("slowdown", "", "float or null", "`fct_s / ideal_fct_s` (at least 1). Null when either is null."),
    _c("completed", "", "bool", "True when the receiver held every byte within the run (`end_s` not null)."),
    _c("bytes_received", "bytes", "int", "In-order payload bytes the receiver holds at the end of the run "
       "(the flow's size once it completed)."),
    _c("goodput_bps", "bit/s", "float", "`bytes_received x 8` divided by the time from `start_s` to "
       "`end_s` (to the end of the run for a flow that did not complete). The denominator includes the "
       "handshake and any time before the first data packet. 0 when that time is 0."),
    _c("pkts_sent", "packets", "int", "Every packet of this flow put into the network, in both directions: "
       "SYN and SYN-ACK, data segments (retransmissions included) and the receiver's ACKs."),
    _c("pkts_delivered", "packets", "int", "Of `pkts_sent`, the packets that reached their endpoint "
       "(either direction)."),
    _c("pkts_dropped", "packets", "int", "Of `pkts_sent`, the packets dropped anywhere, in either "
       "direction and for any reason (ACKs included). A packet is counted once, where it was dropped."),
    _c("sender_drops", "packets", "int", "Of `pkts_dropped`, the packets of the sending direction (data, "
       "SYN) dropped by the sending host's own NIC queue (the first link of the flow's route), not by a "
       "router."),
    _c("local_cwr", "", "int", "Window reductions in response to drops at, or refusals by, the sender's own "
       "NIC queue (`[tcp] local_drop = \"cwr\"` or `\"hold\"`, at most one per window of data; 0 otherwise)."),
    _c("nic_refusals", "", "int", "Times the sending host's own NIC queue refused a data segment that the "
       "flow kept unsent and sent later, when the queue had room (`[tcp] local_drop = \"hold\"`, as Linux's "
       "tcp_write_xmit). Not packets sent or dropped: nothing was lost. Linux's qdisc counts each such "
       "refusal as a drop, so a testbed's \"sender drops\" are `sender_drops + nic_refusals`."),
    _c("data_pkts_sent", "packets", "int", "Data segments the sender transmitted, new and retransmitted "
       "(no SYN, no ACK)."),
    _c("retransmits", "packets", "int", "Segments the sender transmitted again: data segments below the "
       "highest sequence already sent (by fast retransmit, loss recovery or after a timeout) plus SYNs "
       "resent after a timeout. It counts what the sender resent, not what the network lost: after a "
       "timeout a sender resends segments that may have arrived, and under reordering it resends segments "
       "that were only late, so it can exceed `pkts_dropped`; and `pkts_dropped` counts lost ACKs, which "
       "are never retransmitted."),
    _c("timeouts", "", "int", "Expiries of the retransmission timer while data (or the SYN) was "
       "outstanding."),
    _c("fast_retransmits", "", "int", "Entries into loss recovery on duplicate ACKs or SACK information "
       "(one per loss event, not one per retransmitted segment)."),
    _c("ecn_reductions", "", "int", "Window reductions in response to ECN-Echo (at most one per window of "
       "data, RFC 3168)."),
    _c("ooo_arrivals", "packets", "int", "Data segments that reached the receiver above a hole (out of "
       "order)."),
    _c("mean_rtt_s", "s", "float or null", "Mean of the round-trip-time samples the sender took (Karn's "
       "rule: none from retransmitted segments; whole ticks when `rtt_tick` is set). Null without a "
       "sample."),
    _c("cwnd_pkts", "packets", "float", "The congestion window at the end of the run, or when the flow "
       "finished."),
    _c("sp_sent", "", "int", "Super-packets the flow started (first packets sent; `tcp.superpacket`)."),
    _c("sp_denied", "", "int", "Super-packets judged refused: a timeout with nothing of them acknowledged."),
    _c("sp_fell_back", "", "bool", "True when the flow gave up super-packets and sent normal packets "
       "(`sp_on_denial = \"fallback\"`)."),
))

LINKS = Table("links", "one row per link direction (a `->` b), host links included", (
    _c("link_id", "", "int", "The link's number, from 0."),
    _c("name", "", "string", "`a->b`: the link from node a to node b."),
    _c("from", "", "string", "The sending node."),
    _c("to", "", "string", "The receiving node."),
    _c("queue", "", "string", "The queue discipline at the link's entrance (`droptail`, `red`, `riops`, "
       "`superpacket`, ...). Every link has one, host NICs included."),
    _c("limit", "", "float or null", "The queue's capacity, in `limit_unit`. Null for a discipline without "
       "one."),
    _c("limit_unit", "", "string", "`pkts` or `bytes`; empty when `limit` is null."),
    _c("rate_bps", "bit/s", "int", "The link's rate."),
    _c("delay_s", "s", "float", "The link's one-way propagation delay."),
    _c("arrivals", "packets", "int", "Packets offered to the link's queue, dropped ones included."),
    _c("departures", "packets", "int", "Packets whose transmission has finished: delivered, still "
       "propagating, or held back by the reordering stage."),
    _c("delivered", "packets", "int", "Packets that reached the far end."),
    _c("drops", "packets", "int", "Packets the link's queue dropped, every reason (the sum of the "
       "`drops_*` columns)."),
    *(_c(f"drops_{r}", "packets", "int", f"Drops for this reason: {d}.") for r, d in DROP_REASONS),
    _c("refusals", "", "int", "For a host's NIC queue: data segments its flows kept unsent because the "
       "queue was full (`[tcp] local_drop = \"hold\"`, as Linux); not arrivals, not drops (Linux's qdisc "
       "counts them as drops). 0 elsewhere."),
    _c("marks", "packets", "int", "Packets the queue marked with ECN Congestion Experienced."),
    _c("bytes_arrived", "bytes", "int", "Wire bytes (headers included) of `arrivals`."),
    _c("bytes_departed", "bytes", "int", "Wire bytes of `departures`."),
    _c("max_pkts", "packets", "int", "The largest number of packets waiting in the queue (the packet "
       "being transmitted not counted)."),
    _c("max_bytes", "bytes", "int", "The largest number of bytes waiting in the queue."),
    _c("mean_pkts", "packets", "float", "The time average of the packets waiting, over the whole run."),
    _c("mean_bytes", "bytes", "float", "The time average of the bytes waiting, over the whole run."),
    _c("utilization", "", "float", "Fraction of the run the link spent transmitting (0 to 1)."),
    _c("queued_pkts", "packets", "int", "Packets waiting at the end of the run."),
    _c("on_wire_pkts", "packets", "int", "Packets transmitted and still propagating at the end of the run."),
    _c("reordered", "packets", "int", "Packets the reordering stage held back (`[[reorder]]`; 0 "
       "otherwise)."),
))

QUEUE_SERIES = Table("queue_series", "one row per sampled link per `sample_interval`, from 0 to the end "
                     "of the run; empty without `[output] sample_queues`", (
    _c("t_s", "s", "float", "The sample's time."),
    _c("link", "", "string", "The link's name (`a->b`)."),
    _c("pkts", "packets", "int", "Packets waiting in the queue at `t_s` (the one being transmitted not "
       "counted)."),
    _c("bytes", "bytes", "int", "Bytes waiting in the queue at `t_s`."),
    _c("arrivals", "packets", "int", "The link's `arrivals` so far (cumulative: a rate is a difference "
       "between samples)."),
    _c("drops", "packets", "int", "The link's drops so far (cumulative)."),
    _c("refusals", "", "int", "The link's `refusals` so far (cumulative; a host NIC's segments kept "
       "unsent while it was full)."),
    _c("marks", "packets", "int", "The link's ECN marks so far (cumulative)."),
    _c("bytes_delivered", "bytes", "int", "Wire bytes the link has delivered to its far end so far "
       "(cumulative)."),
))

QUEUE_COUNTERS = Table("queue_counters", "one row per counter of each queue discipline that keeps "
                       "counters (RED, RIO-PS, the super-packet router) and of each edge classifier", (
    _c("link", "", "string", "The link whose queue the counter belongs to, or the edge classifier's name "
       "(`classifier@LINK`, or its router)."),
    _c("counter", "", "string", "The counter's name, e.g. `red_early_drops`, `rio_in_early_drops`, "
       "`droptail_ecn_marks` (with `ecn_threshold`), `sp_admitted`, `sp_table_pairs`, `cls_table_full_pkts`."),
    _c("value", "", "float", "The counter's value at the end of the run."),
))

FLOW_SERIES = Table("flow_series", "one row per TCP flow per `sample_flows` interval, from 0 to the end "
                    "of the run; empty without `[output] sample_flows`", (
    _c("t_s", "s", "float", "The sample's time."),
    _c("flow_id", "", "int", "The flow (`flows.flow_id`)."),
    _c("bytes_received", "bytes", "int", "In-order payload bytes the receiver holds at `t_s` (cumulative: "
       "goodput over an interval is the difference x 8 / the interval)."),
    _c("cwnd_pkts", "packets", "float", "The congestion window at `t_s`."),
    _c("ssthresh_pkts", "packets", "float or null", "The slow-start threshold at `t_s`. Null while it is "
       "still infinite (before the first reduction)."),
    _c("srtt_s", "s", "float or null", "The smoothed round-trip time (RFC 6298) at `t_s`. Null before the "
       "first sample."),
    _c("in_recovery", "", "bool", "True while the flow is in loss recovery at `t_s`."),
))

SOURCES = Table("sources", "one row per non-TCP source (traffic kinds `cbr`, `onoff`, `mbs_probe`, "
                "`sp_attack`); no rows without one", (
    _c("source_id", "", "int", "The source's number, from 0."),
    _c("traffic", "", "string", "The traffic entry it comes from (`traffic[2]`)."),
    _c("kind", "", "string", "The traffic kind."),
    _c("src", "", "string", "The sending node."),
    _c("dst", "", "string", "The receiving node."),
    _c("mean_rate_bps", "bit/s", "float", "The long-run mean rate the source is configured to send: a cbr "
       "source's rate, an on-off source's rate while on x its mean on share, an attacker's packets per "
       "second x packet bits; 0 for an `mbs_probe`."),
    _c("pkts_sent", "packets", "int", "Packets the source sent."),
    _c("pkts_delivered", "packets", "int", "Of those, packets that reached `dst`."),
    _c("pkts_dropped", "packets", "int", "Of those, packets dropped on the way."),
    _c("bytes_sent", "bytes", "int", "Wire bytes the source sent."),
    _c("bytes_delivered", "bytes", "int", "Wire bytes that reached `dst`."),
    _c("throughput_bps", "bit/s", "float", "`bytes_delivered x 8` / the length of the run."),
    _c("replies_dropped", "packets", "int", "An `mbs_probe`'s per-packet reports from the receiver that "
       "were dropped (0 for other kinds)."),
))

PROBE_TRAINS = Table("probe_trains", "one row per train an `mbs_probe` sent (maximum-burst-size search "
                     "and available-bandwidth rounds); no rows without a probe", (
    _c("probe", "", "string", "The probe's traffic entry (`traffic[0]`)."),
    _c("t_s", "s", "float", "When the train was sent."),
    _c("phase", "", "string", "The probe's phase: `mbs` (the burst-size search) or `fac` (the "
       "available-bandwidth rounds)."),
    _c("n", "packets", "int", "Packets in the train."),
    _c("rate_in_bps", "bit/s", "float", "The rate the train was sent at."),
    _c("received", "packets", "int", "Packets of the train the receiver reported."),
    _c("rate_out_bps", "bit/s", "float or null", "The rate the train arrived at (its dispersion at the "
       "receiver). Null when too few packets arrived to measure it."),
    _c("lossless", "", "bool", "True when every packet of the train arrived."),
))

MONITOR = Table("monitor", "one row per `interval` of the high-frequency monitor; written only with "
                "`[output] monitor`", (
    _c("t_s", "s", "float", "The sample's time."),
    _c("queue_pkts", "packets", "int", "Packets waiting in the monitored link's queue at `t_s`."),
    _c("max_queue_pkts", "packets", "int", "The largest number of packets waiting since the previous "
       "sample (no burst between samples is missed)."),
    _c("window_pkts", "packets", "float", "The sum of the congestion windows of the TCP flows crossing the "
       "link at `t_s`."),
    _c("predicted_pkts", "packets", "float", "The queue the windows alone predict: q solving "
       "sum_i w_i / (d_i + q / C) = C over those flows (w their windows, d their propagation round "
       "trips, C the link's rate), 0 when the windows do not fill the path."),
    _c("drops", "packets", "int", "The link's drops so far (cumulative)."),
))

TABLES: tuple[Table, ...] = (FLOWS, LINKS, QUEUE_SERIES, QUEUE_COUNTERS, FLOW_SERIES, SOURCES, PROBE_TRAINS,
                             MONITOR)

#: Tables a run always writes as `DIR/<name>.parquet` (with their columns, even without rows);
#: `monitor.parquet` only with `[output] monitor`.
ALWAYS_WRITTEN = ("flows", "links", "queue_series", "queue_counters", "flow_series", "sources", "probe_trains")

SUMMARY: tuple[Output, ...] = (
    _c("name", "", "string", "The scenario's `name`."),
    _c("seed", "", "int", "The seed the run used."),
    _c("sim_time_s", "s", "float", "The simulated time at the end of the run (the scenario's `duration`)."),
    _c("events", "", "int", "Events the simulator processed."),
    _c("tcp_configs", "", "object", "Per traffic entry (`traffic[0]`, ...), the TCP configuration its "
       "flows used: the congestion control, the loss recovery, the reordering response and the send gate "
       "with every parameter, defaults included, then the host's parts as the `host` profile and the "
       "scenario's own fields resolved them (`prr`, `limited_transmit`, `sack_after_rto`, `rto_formula`, "
       "`local_drop`, `tsq_limit_bytes` (\"none\": TCP Small Queues off), `slow_start_exit`, `slow_start_increment`). Absent when "
       "the run has no TCP flow."),
    _c("flows", "", "int", "TCP flows in the run (rows of `flows`)."),
    _c("completed_flows", "", "int", "Flows whose receiver held every byte within the run."),
    _c("mean_fct_s", "s", "float or null", "Mean `fct_s` over the completed flows. Null when none "
       "completed."),
    _c("flows_with_timeout", "", "int", "Flows with at least one retransmission timeout."),
    _c("drops", "packets", "int", "Packets dropped by every link's queue, every kind of packet (the sum of "
       "`links.drops`)."),
    _c("sender_drops", "packets", "int", "TCP packets dropped by their sender's own NIC queue (the sum of "
       "`flows.sender_drops`)."),
    _c("nic_refusals", "", "int", "Data segments the senders' NIC queues refused and the flows kept to send "
       "later (the sum of `flows.nic_refusals`; `[tcp] local_drop = \"hold\"`); not drops."),
    _c("live_packets", "packets", "int", "Packets still in the network at the end of the run."),
    _c("peak_live_packets", "packets", "int", "The most packets in the network at once."),
    _c("conservation", "", "string", "`ok` when every packet sent is accounted for (delivered, dropped or "
       "still in the network); otherwise the discrepancy found."),
    _c("probes", "", "list of objects", "One entry per `mbs_probe` source: its measurement beside the "
       "fluid model's (keys below). Absent without a probe."),
    _c("warnings", "", "list of strings", "Settings the scenario accepted that likely do not mean what was "
       "meant, one line each naming the field: a RED or RIO `max_th` at or above its queue's `limit` (the "
       "average queue cannot reach it before the tail drops), and most of the run's drops at the senders' "
       "own NIC queues (`sender_drops` above half of `drops`). `superpacket run` also prints them on "
       "stderr. Absent when there is none."),
)

#: Keys summary.json (and `run --json`'s `summary`) add to SUMMARY: the run's rates, from
#: its tables (`Results.summary_json`). Not in `Results.summary` nor a sweep's
#: summary.parquet, whose columns stay the simulator's keys.
SUMMARY_RATES: tuple[Output, ...] = (
    _c("tcp_goodput_bps", "bit/s", "float or null", "The run's TCP goodput over its whole length: in-order "
       "payload bytes all TCP receivers hold at the end (the sum of `flows.bytes_received`) x 8 / "
       "`sim_time_s`. Headers and retransmitted copies are not counted. 0 without TCP flows; null for a run "
       "of length 0."),
    _c("sources_throughput_bps", "bit/s", "float or null", "Wire bytes the non-TCP sources delivered (the sum "
       "of `sources.bytes_delivered`) x 8 / `sim_time_s`. 0 without such sources; null for a run of length 0."),
    _c("link_utilization", "", "object", "Link name (`a->b`) -> its `links.utilization` (fraction of the run "
       "spent transmitting, 0 to 1), for every link that carried a packet (`links.arrivals` > 0)."),
    _c("busiest_link", "", "string or null", "The link of `link_utilization` with the highest utilisation (the "
       "lowest `link_id` among equals): on a dumbbell, the bottleneck. Null when no link carried a packet."),
    _c("busiest_link_utilization", "", "float or null", "That link's utilisation (0 to 1)."),
)

#: The keys of each entry of the summary's `probes`.
PROBE_KEYS: tuple[Output, ...] = (
    _c("traffic", "", "string", "The probe's traffic entry."),
    _c("src", "", "string", "The probing host."),
    _c("dst", "", "string", "The receiving host."),
    _c("phase", "", "string", "The phase the probe ended in (`mbs`, `fac` or `done`)."),
    _c("mbs_pkts", "packets", "int or null", "The maximum burst size measured: the largest train that "
       "passed without loss. Null if not found."),
    _c("mbs_bytes", "bytes", "int or null", "`mbs_pkts` x the probe's packet size."),
    _c("mbs_unbounded", "", "bool", "True when the largest train tried passed (the MBS is above it)."),
    _c("mbs_model_pkts", "packets", "float or null", "The fluid model's MBS, Q / (1 - A/R) per hop from "
       "the scenario (buffers, cross traffic, line rate). Null where the model has no answer."),
    _c("mbs_model_unbounded", "", "bool", "True when the model's MBS is unbounded."),
    _c("abw_bps", "bit/s", "float or null", "The available bandwidth the probe estimated (FAC)."),
    _c("abw_model_bps", "bit/s", "float or null", "The available bandwidth from the scenario: the "
       "smallest capacity minus cross traffic along the path."),
    _c("capacity_bps", "bit/s", "float or null", "The bottleneck capacity the probe's fit gives."),
    _c("cross_bps", "bit/s", "float or null", "The cross traffic the probe's fit gives."),
    _c("line_rate_bps", "bit/s", "float", "The probing host's line rate."),
    _c("trains", "", "int", "Trains the probe sent (rows of `probe_trains` for it)."),
    _c("probe_bytes", "bytes", "int", "Wire bytes the probe sent."),
)


#: What a sweep (`superpacket sweep`, `superpacket.sweep`) writes, beside the tables above.
SWEEP_FILES: tuple[Output, ...] = (
    _c("sweep.json", "", "object", "The sweep's definition: `scenario` (the base scenario as a table), "
       "`params` (each parameter path and its values), `seeds`, `format`; with linked parameters "
       "(`--link`), `linked`: each group's `paths` and `labels` (a path's i-th value belongs to the i-th "
       "label)."),
    _c("PATH=VALUE/.../seed=N/", "", "folder", "One folder per run: the parameter values (a linked group's as "
       "`NAME=LABEL`), then the seed. It "
       "holds `flows`, `links`, `queue_series`, `queue_counters` and `flow_series` as Parquet (the tables "
       "above; the others are not written by a sweep), `summary.json`, `summary.parquet` (the summary as "
       "one row: its keys as columns, nested values as JSON text) and the exact `scenario.toml` it ran."),
    _c("failures.jsonl", "", "lines of objects", "One JSON object per line for each run that failed: `params`, "
       "`seed`, `dir` (its folder), `error` (the last line of the traceback) and `traceback`. Absent when "
       "every run succeeded."),
    _c("load_sweep(DIR)", "", "SweepData", "`flows`, `links`, `queue_series`, `queue_counters`, "
       "`flow_series` and `summary` of every run concatenated, each with one column per parameter (its "
       "path as the name) and `seed` in front; `params` lists the parameter columns. A linked group adds "
       "a String column named by the group with the point's label, before its paths' own typed columns, "
       "and its rows follow the order the points were given; `linked` maps each group to its paths."),
)


# ---- the validation suite (`superpacket validate --out DIR`) -------------------------------

#: One row per check of `superpacket validate` (`results.parquet`, `results.json`'s
#: `checks`, the DataFrame `superpacket.validation.validate` returns).
VALIDATION_COLUMNS: tuple[Output, ...] = (
    _c("case", "", "str", "The case's name (`--only` takes it)."),
    _c("check", "", "str", "What is compared, in words."),
    _c("unit", "", "str", "The unit of `reference`, `ours`, `error` and `band`."),
    _c("reference", "unit", "float", "The independent reference's value (theory, derived in the case's text)."),
    _c("ours", "unit", "float", "The simulator's value."),
    _c("error", "unit", "float", "ours - reference."),
    _c("rel_error", "", "float", "error / reference."),
    _c("band", "unit", "float", "The largest |error| the check allows (0: exact), its reason in the case's text."),
    _c("holds", "", "bool", "|error| <= band; null for a row shown beside the judged ones (an ns-3 case's "
       "\"ours with our defaults\", where the judged rows configure ours to match ns-3)."),
    _c("x", "", "float", "The point's abscissa on the case's figure (a load, a loss rate, a flow count); null "
       "when the check is not drawn."),
)


# ---- built-in experiments (`superpacket reproduce NAME --out DIR`, then `superpacket report DIR`) ----

#: What `reproduce --out DIR` and `report DIR` write into DIR.
REPRODUCE_FILES: tuple[Output, ...] = (
    _c("summary.json", "", "object", "The experiment's result (written by `reproduce --out`; keys below). "
       "`reproduce --json` prints the same object without `scale`, as the Python API's `run` of the "
       "experiment returns it."),
    _c("per_seed.parquet", "", "table", "Written by `report`: one row per variant, metric and seed, the "
       "per-seed values the means and intervals of `variants` are made from (columns below)."),
    _c("per_flow.parquet", "", "table", "Written by `report` for an experiment whose result has `per_flow` "
       "(incast): one row per flow of each run (columns below)."),
    _c("report.md, report.html, figures/", "", "files", "Written by `report`: the report (scale, claims, "
       "figures, tables, parameters) and its figures as PNG."),
)

#: The top-level keys of an experiment's summary.json. `experiments`: which write the key.
EXPERIMENT_SUMMARY: tuple[Output, ...] = (
    _c("experiment", "", "string", "Every experiment. Its name (`superpacket reproduce NAME`)."),
    _c("seeds", "", "int", "Every experiment. How many seeds ran."),
    _c("seed_list", "", "list of ints", "Every experiment. The seeds that ran, in order (`--seeds`)."),
    _c("params", "", "object", "Every experiment. Parameter name -> `{value, source}`: every value that ran "
       "(read from the scenarios that ran where it is a scenario field), and where it comes from: the paper, "
       "our specification, ours, or an option."),
    _c("variants", "", "object", "Every experiment. Variant -> its metrics over the seeds (keys below)."),
    _c("paper", "", "object", "Every experiment. Variant -> metric -> the paper's value, where the paper "
       "gives one (empty where it gives none)."),
    _c("claims", "", "list of objects", "Every experiment. The claims judged on our runs (keys below)."),
    _c("scale", "", "object", "Every experiment, in `reproduce --out`'s summary.json only. How far the run is "
       "from the experiment's full scale and how long it took (keys below)."),
    _c("quick", "", "bool", "attacks, datacenter. True when run at the `--quick` scale."),
    _c("per_run", "", "object", "Most experiments. Variant -> one object per seed with that run's details the "
       "claims and report read: its packet-conservation check (`conservation`, `ok` or the discrepancy) and "
       "counters particular to the experiment (drops, arrivals, flows measured, ...)."),
    _c("series", "", "object", "jumbo, riops-goodput, riops-web, lion, dcr, fast-burstiness, datatag. Variant "
       "-> time series of the first seed's run, for the report's figures (columns as lists)."),
    _c("paper_note", "", "string", "dcr, dcr-multihop, incast-map, lion, mbs. What the paper's figures give "
       "and how its numbers were read."),
    _c("aliases", "", "object", "dcr, mbs. Variant -> the variant whose runs it shares (the same scenario "
       "and seeds, run once and listed under both names)."),
    _c("table, jain_table, loss_table, bucket_table, tier_table, newreno_recovery, map, droptail, contest_table, "
       "probe_table, sweep_table", "", "list of objects", "attacks and dcr-multihop (`table`), dcr-multihop "
       "(`jain_table`: the per-path Jain index over the measurement window beside the slides', with the change "
       "DCR makes in each), fast-burstiness "
       "and datatag (`loss_table`), datacenter (`bucket_table`, `tier_table`), dcr and lion "
       "(`newreno_recovery`), incast-map (`map`, `droptail`), lion (`contest_table`), mbs (`probe_table`, "
       "`sweep_table`). A table of the report, one object per row: the report prints it under its title, "
       "which says what its columns are."),
    _c("table_mean_time_s, table_cov", "", "object", "loss-sensitivity. Flow size (`n4`, ...) -> loss "
       "probability (`p0.01`, ...) -> the mean transfer time (s) or its coefficient of variation, means over "
       "seeds."),
    _c("paper_figures", "", "string", "loss-sensitivity. What the paper's figures give."),
    _c("regime", "", "string", "incast. The regime reported under `variants` (`--regime`: paper or "
       "datacenter)."),
    _c("regimes", "", "object", "incast. The other regime's result: the keys below from `access_link` to "
       "`per_flow`, and its own `variants`."),
    _c("access_link, bottleneck_link", "", "string", "incast. The regime's sender links and its R->D link "
       "(rate, delay, buffer)."),
    _c("improvement_pct", "%", "object", "incast. Super-packet variant -> how far its mean FCT lies below "
       "DropTail's."),
    _c("admitted_per_round", "", "object", "incast. Super-packet variant -> super-packets admitted in each "
       "admission round (rounds 1-4), means over seeds."),
    _c("denied_flows_mean_timeouts", "", "object", "incast. Super-packet variant -> retransmission timeouts "
       "per flow among the flows the router refused."),
    _c("droptail_mean_timeouts", "", "float", "incast. Retransmission timeouts per flow under DropTail."),
    _c("flows_not_completed", "", "object or int", "incast: variant -> flows that did not complete, summed "
       "over seeds. incast-map: the same over every point."),
    _c("conservation", "", "object", "incast. Variant -> each seed's packet-conservation check (`ok` or "
       "the discrepancy)."),
    _c("per_flow", "", "object", "incast. Variant -> one object per seed: `fct_s` and `timeouts` per flow "
       "(lists in flow order), `sp_denied`, `sp_admitted_per_round`. `report` writes it as "
       "per_flow.parquet."),
    _c("explanation", "", "string", "incast. Why the regime came out as it did, in words from its numbers."),
    _c("conservation_ok", "", "bool", "incast-map. True when every run conserved packets."),
    _c("incast_points", "", "object", "incast-map. Incast regime -> the map's point it corresponds to."),
    _c("figure_load, buckets, size_bins, queue_series, sp_explanation", "", "various", "datacenter. The load "
       "the figures are drawn at; per variant the slowdown by flow-size bucket (count, mean, median, p99) "
       "and in log-spaced size bins; the sampled queues of the first seed's run with each port's role, "
       "buffer and marking threshold; why super-packets did as they did, per variant."),
    _c("paper_draft_8mbps", "", "object", "dcr. The TCP-DCR draft's table for one TCP-SACK flow at 8 Mb/s, "
       "beside ours."),
    _c("zoom", "", "object", "fast-burstiness, datatag. Variant -> a one-second zoom of the first seed's "
       "queue at 1 ms beside the queue the windows alone predict."),
    _c("our_mbs_model_pkts, sim_probes, train_series", "", "object", "mbs. Per probe variant: the fluid "
       "model's maximum burst size (packets), each seed's probe result (the run summary's `probes` entry), "
       "and the trains of the first seed's probe."),
    _c("paper_response_cut_pct", "%", "object", "riops-web. The paper's response-time cuts of RIO-PS against "
       "RED (ranges)."),
    _c("skipped", "", "list", "threshold. The points not run: a threshold t above the base scenario's buffer."),
)

#: The keys of each variant under `variants` (and under an incast regime's `variants`).
EXPERIMENT_VARIANT_KEYS: tuple[Output, ...] = (
    _c("METRIC", "the metric's", "float", "The mean over the seeds of the metric (its name gives its unit: "
       "`_s` seconds, `_bps` bit/s, `_pkts` packets, `_pct` percent; a count or ratio otherwise)."),
    _c("METRIC_ci95", "the metric's", "[float, float]", "The interval of the mean: with 3 or more seeds its "
       "95 % confidence interval (Student t), clipped to the metric's range; with 2 seeds the values' "
       "min and max; with 1 the value."),
    _c("METRIC_per_seed", "the metric's", "list of floats", "The value of each seed, in `seed_list`'s order."),
)

#: The keys of each claim under `claims`.
EXPERIMENT_CLAIM_KEYS: tuple[Output, ...] = (
    _c("id", "", "string", "The claim's id in its experiment's record (`superpacket list --claims`); a claim "
       "judged once per protocol, load or variant carries the same id each time."),
    _c("claim", "", "string", "The claim, in words, with the paper's figure where it gives one: its record's "
       "text with the run's values filled in."),
    _c("holds", "", "bool", "Whether our runs bear it out."),
    _c("must_hold", "", "bool", "False for a claim shown beside the others, not one our specification "
       "requires."),
    _c("(other keys)", "", "", "The numbers the claim is judged on, named for what they are."),
)

#: The keys of `scale`.
EXPERIMENT_SCALE_KEYS: tuple[Output, ...] = (
    _c("quick", "", "bool", "Run with `--quick`."),
    _c("seeds", "", "int", "Seeds that ran."),
    _c("default_seeds", "", "int or null", "The experiment's default number of seeds."),
    _c("indicative", "", "bool", "True at reduced scale (`--quick`, or fewer seeds than the default): the "
       "verdicts may change at full scale."),
    _c("durations", "s", "object", "Each parameter of `params` with `duration` in its name -> its value."),
    _c("wall_s", "s", "float", "Wall-clock time the experiment took."),
)

#: per_seed.parquet (`report DIR` of an experiment's folder).
PER_SEED = Table("per_seed", "one row per variant, metric and seed (`report` of a `reproduce --out` folder)", (
    _c("variant", "", "string", "The variant (a key of `variants`)."),
    _c("metric", "", "string", "The metric (a key of the variant with an interval)."),
    _c("seed", "", "int (u64)", "The seed (a value of `seed_list`: `--seeds 3..5` gives 3, 4 and 5)."),
    _c("value", "the metric's", "float or null", "The metric's value for that seed."),
))

#: per_flow.parquet (incast).
PER_FLOW = Table("per_flow", "one row per flow of each run, for an experiment whose result has `per_flow` "
                 "(incast)", (
    _c("variant", "", "string", "The variant."),
    _c("seed", "", "int (u64)", "The seed (a value of `seed_list`)."),
    _c("flow_index", "", "int", "The flow's position in the run, from 0."),
    _c("fct_s", "s", "float or null", "The flow's completion time (`flows.fct_s` of that run)."),
    _c("timeouts", "", "int", "The flow's retransmission timeouts."),
))

EXPERIMENT_TABLES: tuple[Table, ...] = (PER_SEED, PER_FLOW)


#: `superpacket emulate --out DIR` (superpacket.emulate): real kernel TCP through the
#: project's router. Its own tables: what TCP_INFO and the router can tell, named as the
#: simulator's columns where the meaning is the same.
EMULATE_FLOWS = Table("flows", "one row per TCP flow, in `flow_id` order", (
    _c("flow_id", "", "int", "The flow's number, in the order of the scenario's traffic entries."),
    _c("src", "", "string", "The sending host."),
    _c("dst", "", "string", "The receiving host."),
    _c("cc", "", "string", "The congestion control the scenario names (`newreno`, `cubic`)."),
    _c("kernel_cc", "", "string", "The kernel's congestion control the sender ran (TCP_CONGESTION: `reno`, "
       "`cubic`)."),
    _c("size_bytes", "bytes", "int or null", "Payload bytes of a flow of given size (traffic `flow`); null "
       "for a bulk flow."),
    _c("start_s", "s", "float or null", "When the sender called connect() (its SYN), from the start of the run."),
    _c("end_s", "s", "float or null", "A flow of given size: when the receiving application read its last "
       "byte (null if it did not within the run). A bulk flow: when the sender stopped, at the end of the run."),
    _c("fct_s", "s", "float or null", "Flow completion time of a flow of given size: `end_s - start_s`, from "
       "the SYN until the receiver holds every byte. Null for a bulk flow and a flow not complete."),
    _c("bytes_received", "bytes", "int", "Payload bytes the receiving application read."),
    _c("goodput_bps", "bit/s", "float", "`bytes_received x 8` divided by the time from `start_s` to `end_s` "
       "(to the end of the run for a flow that did not complete)."),
    _c("retransmits", "packets", "int or null", "Segments the sender retransmitted (TCP_INFO "
       "`tcpi_total_retrans` at the end)."),
    _c("timeouts", "", "int or null", "Retransmission timeouts (TCP_INFO `tcpi_total_rto`, Linux 6.7 and "
       "later; null on older kernels)."),
    _c("final_cwnd_pkts", "packets", "int or null", "The congestion window at the end (`tcpi_snd_cwnd`)."),
    _c("srtt_s", "s", "float or null", "The smoothed RTT at the end (`tcpi_rtt`)."),
    _c("min_rtt_s", "s", "float or null", "The smallest RTT the kernel saw (`tcpi_min_rtt`)."),
    _c("error", "", "string or null", "Why the flow failed (connect refused, reset ...); null when it ran."),
))

EMULATE_LINKS = Table("links", "one row per link direction (a `->` b) the router emulates, host links included", (
    _c("link_id", "", "int", "The link's number in the router."),
    _c("name", "", "string", "`a->b`: the link from node a to node b, as the simulator names it."),
    _c("from", "", "string", "The sending node."),
    _c("to", "", "string", "The receiving node."),
    _c("queue", "", "string", "The queue discipline at the link's entrance (`droptail` or `red`)."),
    _c("limit", "packets", "int", "The queue's capacity (packets waiting, the one being serialised not counted)."),
    _c("rate_bps", "bit/s", "int", "The link's rate; serialisation counts IPv4 bytes (the frame less its "
       "14-byte Ethernet header), as the simulator counts packet sizes."),
    _c("delay_s", "s", "float", "The link's propagation delay."),
    _c("arrivals", "packets", "int", "Packets offered to the link's queue during the run, dropped ones "
       "included."),
    _c("departures", "packets", "int", "Packets whose serialisation ended during the run."),
    _c("drops", "packets", "int", "Packets the queue dropped, every cause (the sum of the three below)."),
    _c("drops_overflow", "packets", "int", "Arrivals that found `limit` packets waiting."),
    _c("drops_red_early", "packets", "int", "RED's early (probabilistic) drops."),
    _c("drops_red_forced", "packets", "int", "RED's forced drops: the average queue at or above max_th "
       "(2 x max_th with `gentle`)."),
    _c("red_avg", "packets", "float or null", "RED's average queue at the end of the run (null for DropTail)."),
    _c("bytes", "bytes", "int", "IPv4 bytes of the `departures`."),
    _c("max_pkts", "packets", "int", "The largest number of packets waiting that an arrival left behind."),
    _c("mean_pkts", "packets", "float", "The time average of the packets waiting over the run (exact: the "
       "sum of each packet's wait inside the run, divided by the run's length)."),
    _c("mean_bytes", "bytes", "float", "The time average of the bytes waiting over the run."),
    _c("utilization", "", "float", "Fraction of the run the link spent serialising (0 to 1)."),
    _c("queued_pkts", "packets", "int", "Packets waiting at the end of the run."),
))

EMULATE_QUEUE_SERIES = Table("queue_series", "one row per sampled link (`[output] sample_queues`) per "
                             "`sample_interval`, from the start of the run", (
    _c("t_s", "s", "float", "Time of the sample, from the start of the run."),
    _c("link", "", "string", "The link (`a->b`)."),
    _c("pkts", "packets", "int", "Packets waiting in the link's queue at `t_s` (from the router's schedule)."),
))

EMULATE_FLOW_SERIES = Table("flow_series", "one row per open TCP flow per `[output] sample_flows` interval "
                            "(100 ms when unset), read from the sender's TCP_INFO", (
    _c("flow_id", "", "int", "The flow."),
    _c("t_s", "s", "float", "Time of the sample, from the start of the run."),
    _c("cwnd_pkts", "packets", "int", "The congestion window (`tcpi_snd_cwnd`)."),
    _c("rtt_s", "s", "float", "The smoothed RTT (`tcpi_rtt`)."),
    _c("ssthresh_pkts", "packets", "int", "The slow-start threshold (`tcpi_snd_ssthresh`; 2147483647 before "
       "the first reduction)."),
    _c("bytes_acked", "bytes", "int", "Bytes acknowledged so far (`tcpi_bytes_acked`)."),
    _c("retransmits", "packets", "int", "Segments retransmitted so far (`tcpi_total_retrans`)."),
))

EMULATE_TABLES: tuple[Table, ...] = (EMULATE_FLOWS, EMULATE_LINKS, EMULATE_QUEUE_SERIES, EMULATE_FLOW_SERIES)

#: `emulate --compare --out DIR`: DIR/compare.parquet.
EMULATE_COMPARE = Table("compare", "one row per compared figure: per link that carried packets in either run "
                        "(utilization, drops, mean_pkts, max_pkts), per flow (goodput_bps, retransmits, "
                        "timeouts, fct_s) and for the run (tcp_goodput_bps, mean_fct_s)", (
    _c("what", "", "string", "`link`, `flow` or `run`."),
    _c("name", "", "string", "The link (`a->b`), the flow's `flow_id`, or empty for the run."),
    _c("metric", "", "string", "The column of the links or flows table, or the summary key, compared."),
    _c("simulated", "", "float or null", "Its value in the simulator's run of the same scenario."),
    _c("emulated", "", "float or null", "Its value in the emulation."),
    _c("difference", "", "float or null", "`emulated - simulated`."),
    _c("relative_difference", "", "float or null", "`difference / |simulated|`; null where `simulated` is 0 "
       "or either is null."),
))

EMULATE_SUMMARY: tuple[Output, ...] = (
    _c("name", "", "string", "The scenario's `name`."),
    _c("duration_s", "s", "float", "The scenario's `duration`: how long the traffic ran, in real time."),
    _c("window_s", "s", "float", "The length of the router's counting window, from the start of the run to "
       "the router's stop at its end (`duration_s` and the few milliseconds signals take): the denominator "
       "of `mean_pkts` and `utilization`."),
    _c("flows", "", "int", "TCP flows started."),
    _c("flows_with_error", "", "int", "Flows whose `error` is set."),
    _c("tcp_goodput_bps", "bit/s", "float", "The flows' `bytes_received` x 8 over `duration_s`."),
    _c("completed_flows", "", "int", "Flows of given size whose every byte reached the receiver."),
    _c("mean_fct_s", "s", "float or null", "The mean `fct_s` of the completed flows; null when none completed."),
    _c("send_lateness_mean_s", "s", "float", "How late the router started sending a frame out of its last link, "
       "against the time the link model delivers it, on average: the router's own timing error."),
    _c("send_lateness_max_s", "s", "float", "The largest such lateness."),
    _c("frames_not_forwarded", "", "int", "Frames the router received and did not forward: not IPv4 (ARP, "
       "IPv6), no route, too long (offloads left on), dropped because the router was full, or refused by the "
       "kernel on send."),
    _c("oversize_frames", "", "int", "Frames longer than 2048 bytes (a veth's segmentation offload left on); "
       "not forwarded."),
    _c("router_full_frames", "", "int", "Frames dropped on arrival because the router already held 262,144 "
       "frames (waiting and on its links' delay lines together), its bound on memory (under 600 MB); 0 in any "
       "run whose queues and bandwidth-delay products are below that."),
)

EMULATE_FILES: tuple[Output, ...] = (
    _c("router.json", "", "object", "The router's own counters (superpacket-emu): per link, per port (frames "
       "received, sent, not forwarded and why) and the histogram of its send lateness."),
    _c("scenario.toml", "", "string", "The scenario as given."),
)


def table(name: str) -> Table:
    """The table called `name`."""
    for t in TABLES:
        if t.name == name:
            return t
    raise KeyError(name)


def _md_table(rows: tuple[Output, ...]) -> list[str]:
    out = ["| name | unit | type | definition |", "|---|---|---|---|"]
    for o in rows:
        out.append(f"| `{o.name}` | {o.unit or '-'} | {o.type} | {o.definition.replace('|', '/')} |")
    return out


def render_markdown() -> str:
    """docs/reference/outputs.md."""
    intro = __doc__.split("\n\n", 2)[2]  # past the module's first two paragraphs
    lines = ["# Outputs", "",
             "Every column of every table a run writes and every key of its summary, with unit and",
             "definition. Generated from `superpacket.outputs` (`python scripts/gen_docs.py`); a test",
             "checks that each column and key a run writes is here and each one here is written.", "",
             intro.strip(), ""]
    for t in TABLES:
        lines += [f"## {t.name}", "", f"Rows: {t.rows}.", ""] + _md_table(t.columns) + [""]
    lines += ["## summary", "",
              ("`Results.summary`, `summary.json`. A sweep's `load_sweep(...).summary` has one row per run "
              "with these keys as columns."), ""] + _md_table(SUMMARY) + [""]
    lines += ["### summary: probes", "", "Each entry of `probes`:", ""] + _md_table(PROBE_KEYS) + [""]
    lines += ["### summary.json: rates", "",
              ("`summary.json` and `run --json`'s `summary` add these keys, computed from the run's tables "
               "(`Results.summary_json()`). They are not in `Results.summary` nor in a sweep's "
               "`summary.parquet`. In `summary.json`, `sim_time_s` is rounded to the simulated clock's "
               "resolution, 1 ns (`30.000000000000004` is written `30.0`)."), ""] + _md_table(SUMMARY_RATES) + [""]
    lines += ["## A built-in experiment's files", "",
              ("`superpacket reproduce NAME --out DIR` writes the experiment's summary.json; `superpacket "
               "report DIR` then adds the report and the per-seed (and, for incast, per-flow) tables:"), "",
              "| file | definition |", "|---|---|"]
    lines += [f"| `{o.name}` | {o.definition} |" for o in REPRODUCE_FILES] + [""]
    lines += ["### An experiment's summary.json", "",
              ("Each definition starts with the experiments that write the key; a row naming several keys "
               "defines them together."), ""] + _md_table(EXPERIMENT_SUMMARY) + [""]
    lines += ["### summary.json: each variant", "",
              "Each entry of `variants`, for each metric `METRIC` the experiment measures:", ""]
    lines += _md_table(EXPERIMENT_VARIANT_KEYS) + [""]
    lines += ["### summary.json: each claim", ""] + _md_table(EXPERIMENT_CLAIM_KEYS) + [""]
    lines += ["### summary.json: scale", ""] + _md_table(EXPERIMENT_SCALE_KEYS) + [""]
    for t in EXPERIMENT_TABLES:
        lines += [f"### {t.name}.parquet", "", f"Rows: {t.rows}.", ""] + _md_table(t.columns) + [""]
    lines += ["## A sweep's files", "", "A sweep's output folder, and what `load_sweep` reads from it:", ""]
    lines += ["| file | definition |", "|---|---|"]
    lines += [f"| `{o.name}` | {o.definition} |" for o in SWEEP_FILES] + [""]
    lines += ["## An emulation's files", "",
              ("`superpacket emulate FILE --out DIR` (real kernel TCP through the project's router; "
               "[the emulation guide](../guide/emulate.md)) writes these tables as `DIR/<table>.parquet`, "
               "its summary as `summary.json`, and:"), "",
              "| file | definition |", "|---|---|"]
    lines += [f"| `{o.name}` | {o.definition} |" for o in EMULATE_FILES] + [""]
    for t in EMULATE_TABLES:
        lines += [f"### emulate: {t.name}", "", f"Rows: {t.rows}.", ""] + _md_table(t.columns) + [""]
    lines += ["### emulate: summary.json", ""] + _md_table(EMULATE_SUMMARY) + [""]
    lines += ["### emulate --compare: compare.parquet", "",
              ("With `--compare`, the simulator's run of the same scenario is written to `DIR/simulated/` "
               "(the files of `superpacket run --out`) and the comparison to `DIR/compare.parquet`."), "",
              f"Rows: {EMULATE_COMPARE.rows}.", ""] + _md_table(EMULATE_COMPARE.columns) + [""]
    lines += ["## The validation suite's results", "",
              ("`superpacket validate --out DIR` writes `results.parquet` (these columns, one row per check), "
               "`results.json` (`version`, `quick`, `wall_s`, `date` and `checks`, the same rows), `report.md` and "
               "one figure per case that has one (`CASE.png`):"), ""] + _md_table(VALIDATION_COLUMNS) + [""]
    return "\n".join(lines)
