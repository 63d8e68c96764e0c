"""`superpacket report DIR` for each kind of folder: a run's, a sweep's, a reproduce
folder's (superpacket.reports)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

from superpacket.experiments.common import MIN_SEEDS_FOR_CI, interval_kind, mean_ci95
from superpacket.reports.doc import Doc, ci_text, interval_note, num


class ReportError(ValueError):
    """The folder is none of: a run, a sweep, a reproduce folder."""


# ---- the three kinds of folder ---------------------------------------------------------

def report(folder: str | Path) -> Path:
    """Writes report.md, report.html and figures/ into `folder`; returns report.md."""
    d = Path(folder)
    if not d.is_dir():
        raise ReportError(f"{d}: not a folder")
    shutil.rmtree(d / "figures", ignore_errors=True)  # figures of an earlier report
    if (d / "sweep.json").exists():
        doc = _sweep_report(d)
    elif (d / "summary.json").exists():
        try:
            s = json.loads((d / "summary.json").read_text())
        except json.JSONDecodeError as e:
            raise ReportError(f"{d / 'summary.json'}: not JSON ({e})") from None
        if "experiment" in s and "variants" in s:
            doc = _reproduce_report(d, s)
        elif (d / "flows.parquet").exists():
            doc = _run_report(d, s)
        else:
            raise ReportError(f"{d}: summary.json is neither a run's nor an experiment's")
    else:
        raise ReportError(f"{d}: no sweep.json or summary.json (not a run, sweep or reproduce folder)")
    return doc.write()


def _metrics(variants: dict[str, dict[str, Any]]) -> list[str]:
    """Every metric of any variant, in first-seen order (variants of one experiment may
    measure different things: mbs's transfers and its probe runs)."""
    out: dict[str, None] = {}
    for ms in variants.values():
        for k in ms:
            if f"{k}_ci95" in ms:
                out.setdefault(k)
    return list(out)


def _reproduce_report(d: Path, s: dict[str, Any]) -> Doc:
    """Verdict first: the scale (full or quick, seeds, durations, wall time), the claims
    (holds / fails, indicative at a reduced scale, ours beside the paper's, the numbers
    judged), then the figures, then the tables (long ones folded)."""
    import polars as pl

    from superpacket.experiments import EXPERIMENTS
    from superpacket.experiments.common import seed_text
    from superpacket.reports import figures, verdicts
    from superpacket.reports.figure_kit import build, variant_order

    exp = EXPERIMENTS.get(s["experiment"])
    order = variant_order(s["experiment"], list(s["variants"]))
    variants: dict[str, dict[str, Any]] = {v: s["variants"][v] for v in order}
    paper: dict[str, dict[str, Any]] = s.get("paper", {})
    if "per_flow" in s:
        s = {**s, "per_flow": {v: s["per_flow"][v] for v in order if v in s["per_flow"]}}
    seeds = int(s["seeds"])
    sc = verdicts.scale(s, exp)
    doc = Doc(f"Experiment {s['experiment']}: ours vs the paper", d)

    # ---- scale ----------------------------------------------------------------------------
    # seed_list: the seeds run (older summaries without it ran 1..seeds)
    ran = seed_text(s.get("seed_list") or range(1, seeds + 1))
    doc.p(f"`superpacket reproduce {s['experiment']}` over seeds {ran}. Scale: {verdicts.scale_text(sc)}.")
    if sc["indicative"]:
        why = "--quick" if sc["quick"] else f"{seeds} of the default {sc['default_seeds']} seeds"
        doc.p(f"The verdicts below are indicative: this run is smaller than the experiment's full scale ({why}); "
              "a claim may hold or fail at full scale where it does not here.")
    doc.p(interval_note(seeds) + " Where the paper gives a number it stands beside ours (red diamonds in "
          "the figures).")

    # ---- claims ---------------------------------------------------------------------------
    if s.get("claims"):
        doc.h("Claims")
        crow = []
        for c in s["claims"]:
            nums = ", ".join(f"{k} = {num(v)}" for k, v in c.items()
                             if k not in ("claim", "holds", "variant", "must_hold", "improvement_pct")
                             and not k.startswith("paper_")
                             and isinstance(v, (int, float)) and not isinstance(v, bool))
            shown = verdicts.number(exp, c)
            crow.append([c["claim"], verdicts.verdict(c, sc["indicative"]), verdicts.judged(c, shown),
                         verdicts.paper_side(c, shown), nums])
        doc.table(["claim", "verdict", "ours", "paper", "numbers it was judged on"], crow, title="Claims",
                  id="claims", fold=False)

    # ---- figures --------------------------------------------------------------------------
    metrics = _metrics(variants)
    bars = metrics if exp is None or exp.generic_bars else []
    extra = build(s)
    if bars or "per_flow" in s or "regimes" in s or extra:
        doc.h("Figures")
    # a bar per variant and metric; an experiment with many variants (generic_bars=False)
    # draws its own figures instead (superpacket.experiments.figures)
    for m in bars:
        doc.figure(figures.bars_vs_paper(m, variants, paper, seeds), f"metric_{m}",
                   f"{m} per variant: mean over {seeds} seeds with its {interval_kind(seeds)}, seeds as dots"
                   + (", paper as red diamonds" if any(m in paper.get(v, {}) for v in variants) else ""))
    if "per_flow" in s:
        doc.figure(figures.per_flow_fct(s["per_flow"], paper, variants), "per_flow_fct",
                   f"Per-flow completion times (the paper's Fig. 4a-c): FCT of each flow, one panel per variant, "
                   f"mean over {seeds} seeds with its {interval_kind(seeds)}, each seed a grey dot; our mean FCT "
                   "(blue line) and the paper's (red dashed)")
    if "regimes" in s:  # incast: the other regime's per-flow times beside the main one's
        for name, b in s["regimes"].items():
            rorder = variant_order(s["experiment"], list(b["variants"]))
            doc.figure(figures.per_flow_fct({v: b["per_flow"][v] for v in rorder if v in b["per_flow"]}, {},
                                            b["variants"]), f"per_flow_fct_{name}",
                       f"Regime {name}: FCT of each flow, one panel per variant, mean over {seeds} seeds with its "
                       f"{interval_kind(seeds)}, each seed a grey dot")
    if extra:
        doc.p("The paper's figures, redrawn from our data:")
        for f in extra:
            doc.figure(f.fig, f.name, f.caption)

    # ---- tables ---------------------------------------------------------------------------
    doc.h("Tables")
    if s.get("paper_note"):
        doc.p(f"The paper's figures: {s['paper_note']}")
    rows = []
    for v, ms in variants.items():
        for m in [m for m in metrics if f"{m}_ci95" in ms]:
            lo, hi = ms[f"{m}_ci95"]
            p = paper.get(v, {}).get(m)
            rows.append([v, m, ci_text(ms[m], lo, hi, len(ms.get(f"{m}_per_seed") or []) or seeds),
                         num(p) if p is not None else ""])
    doc.table(["variant", "metric", f"ours: mean [{interval_kind(seeds)}] n", "paper"], rows,
              title="Results per variant and metric")
    # an experiment's own tables: summary key -> (title, column order or None), each a list of rows
    for key, (title, cols) in (exp.report_tables if exp is not None else {}).items():
        trows = s.get(key) or []
        if trows:
            present = list(dict.fromkeys(k for r in trows for k in r))
            head = [c for c in cols or [] if c in present] + [c for c in present if c not in (cols or [])]
            doc.p(title)
            doc.table(head, [[num(r.get(k)) for k in head] for r in trows], title=title.split(":")[0][:80])
    # the seeds that ran, by their values (`--seeds 3..5` gives 3, 4, 5); a summary without
    # `seed_list` numbers them 1..N
    seed_ids = list(s.get("seed_list") or range(1, seeds + 1))
    if "per_flow" in s:
        rows_pf = []
        for v, runs in s["per_flow"].items():
            for seed, r in zip(seed_ids, runs, strict=True):
                for i, (f, t) in enumerate(zip(r["fct_s"], r["timeouts"], strict=True)):
                    rows_pf.append({"variant": v, "seed": seed, "flow_index": i, "fct_s": f, "timeouts": t})
        pl.DataFrame(rows_pf, schema={"variant": pl.String, "seed": pl.UInt64, "flow_index": pl.Int64,
                                      "fct_s": pl.Float64, "timeouts": pl.Int64}).write_parquet(d / "per_flow.parquet")
    if "regimes" in s:  # incast: why the main regime came out so, then the other regime beside it
        doc.p(f"Regime {s['regime']}, the main one (sender links {s['access_link']}; R->D {s['bottleneck_link']}): "
              f"{s['explanation']}")
        per_round = [[s["regime"], v, ", ".join(f"{x:.1f}" for x in xs)] for v, xs in s["admitted_per_round"].items()]
        for name, b in s["regimes"].items():
            rorder = variant_order(s["experiment"], list(b["variants"]))
            doc.p(f"Regime {name} (sender links {b['access_link']}; R->D {b['bottleneck_link']}): {b['explanation']}")
            rows = []
            for v in rorder:
                ms = b["variants"][v]
                for m in [m for m in metrics if f"{m}_ci95" in ms]:
                    n = len(ms.get(f"{m}_per_seed") or []) or seeds
                    lo, hi = ms[f"{m}_ci95"]
                    rows.append([name, v, m, ci_text(ms[m], lo, hi, n)])
            doc.table(["regime", "variant", "metric", f"ours: mean [{interval_kind(seeds)}] n"], rows,
                      title=f"Regime {name}")
            per_round += [[name, v, ", ".join(f"{x:.1f}" for x in xs)] for v, xs in b["admitted_per_round"].items()]
        doc.p("Super-packets admitted per admission round (rounds 1-4; a round is a run of first packets with "
              "gaps under EPOCH / 8), mean over seeds:")
        doc.table(["regime", "variant", "admitted per round"], per_round, title="Admitted per round")
    if s.get("params"):
        doc.h("Parameters")
        doc.table(["parameter", "value", "source"],
                  [[k, p.get("value"), p.get("source", "")] for k, p in s["params"].items()], title="Parameters")
    per_seed = [{"variant": v, "metric": m, "seed": seed, "value": float(x) if x is not None else None}
                for v, ms in variants.items() for m in metrics
                for seed, x in zip(seed_ids, ms.get(f"{m}_per_seed", []), strict=False)]
    # seeds are u64 (2^63 and above do not fit Int64), as a sweep's `seed` column
    pl.DataFrame(per_seed, schema={"variant": pl.String, "metric": pl.String, "seed": pl.UInt64,
                                   "value": pl.Float64}).write_parquet(d / "per_seed.parquet")
    doc.h("Data")
    doc.p("summary.json (the whole result), per_seed.parquet (variant, metric, seed, value)"
          + (", per_flow.parquet (variant, seed, flow_index, fct_s, timeouts)" if "per_flow" in s else "")
          + f"; regenerate this report with `superpacket report {d}`.")
    return doc


MAX_FLOW_BARS = 60  # above this, a run report draws the flows' distribution, not a bar each


def _size_buckets(doc: Doc, flows: Any) -> None:
    """The flows by size bucket (0-100 KB, 100 KB-1 MB, 1-10 MB, > 10 MB, as datacenter
    papers report them): count, mean, median and p99 of the FCT and, where the table has
    it, of the slowdown (FCT over the ideal FCT), completed flows only."""
    import polars as pl

    from superpacket.experiments.datacenter import bucket_summary

    done = flows.filter(pl.col("completed") & pl.col("size_bytes").is_not_null())
    if not done.height:
        return
    sizes = done["size_bytes"].cast(pl.Float64).to_list()
    rows = []
    for col in ("fct_s", "slowdown"):
        if col not in done.columns:
            continue
        for b in bucket_summary(sizes, done[col].cast(pl.Float64).to_list()):
            rows.append([col, b["bucket"], b["count"], num(b["mean"]), num(b["median"]), num(b["p99"])])
    doc.table(["metric", "size bucket", "flows", "mean", "median", "p99"], rows)


def _run_report(d: Path, s: dict[str, Any]) -> Doc:
    import polars as pl

    from superpacket.reports import figures

    flows = pl.read_parquet(d / "flows.parquet", glob=False)
    links = pl.read_parquet(d / "links.parquet", glob=False)
    doc = Doc(f"Run {s.get('name') or d.name} (seed {s.get('seed')})", d)
    doc.p(f"One run, seed {s.get('seed')}: no confidence intervals (use `superpacket sweep` over seeds for "
          f"them). Simulated {num(s.get('sim_time_s'))} s, {num(s.get('events'))} events, packet "
          f"conservation: {s.get('conservation')}.")
    doc.h("Summary")
    doc.table(["field", "value"], [[k, num(v)] for k, v in sorted(s.items()) if not isinstance(v, (dict, list))])
    tcp = s.get("tcp_configs") or {}
    if tcp:
        from superpacket.tcp_config import readable_all, tcp_text

        doc.h("TCP")
        doc.table(["traffic entry", "congestion control, recovery, reordering response, send gate"],
                  [[k, tcp_text(v)] for k, v in readable_all(tcp).items()])
    if flows.height:
        fct = flows["fct_s"].cast(pl.Float64, strict=False)
        done = fct.drop_nulls().drop_nans()
        metric, vals = ("fct_s", fct.to_list()) if done.len() else ("goodput_bps", flows["goodput_bps"].to_list())
        doc.h("Flows")
        if flows.height <= MAX_FLOW_BARS:
            doc.figure(figures.run_flows(flows["flow_id"].to_list(), vals, flows["timeouts"].to_list(), metric),
                       f"flows_{metric}", f"{metric} of each flow; red bars: flows with a retransmission timeout")
        else:
            # a bar per flow stops being readable (424 flows made an image 11,869 px wide)
            doc.figure(figures.run_flows_cdf(vals, flows["timeouts"].to_list(), metric), f"flows_{metric}_cdf",
                       f"Distribution of {metric} over the {flows.height} flows (empirical CDF); red: flows "
                       "with a retransmission timeout")
            _size_buckets(doc, flows)
        cols: list[str] = [c for c in ("flow_id", "src", "dst", "size_bytes", "fct_s", "goodput_bps", "retransmits",
                                       "timeouts") if c in flows.columns]
        if flows.height <= 50:
            doc.table(cols, [[num(v) for v in r] for r in flows.select(cols).iter_rows()])
    qs_path = d / "queue_series.parquet"
    if qs_path.exists():
        qs = pl.read_parquet(qs_path, glob=False)
        if qs.height:
            qs = qs.with_columns(pl.col("t_s", "pkts").cast(pl.Float64, strict=False))
            series = {str(k[0]): (g["t_s"].to_list(), g["pkts"].to_list())
                      for k, g in qs.group_by("link", maintain_order=True)}
            doc.h("Queues")
            doc.figure(figures.queue_series(series), "queue_series", "Sampled queue length per link")
    busy = links.filter(pl.col("arrivals") > 0)
    if busy.height:
        doc.h("Links")
        cols = [c for c in ("name", "queue", "arrivals", "drops", "marks", "max_pkts", "mean_pkts", "utilization")
                if c in busy.columns]
        doc.table(cols, [[num(v) for v in r] for r in busy.select(cols).iter_rows()])
    if (d / "scenario.toml").exists():
        doc.h("Scenario (scenario.toml)")
        doc.pre((d / "scenario.toml").read_text())
    return doc


_SWEEP_METRICS = ("mean_fct_s", "flows_with_timeout", "completed_flows", "drops", "mean_goodput_bps")


def _sweep_report(d: Path) -> Doc:
    import polars as pl

    from superpacket import _toml, sweeps
    from superpacket.reports import figures
    from superpacket.sweeps import load as sweep_load

    meta = sweeps.read_meta(d)
    data = sweeps.load_sweep(d)
    params = data.params
    name = meta["scenario"].get("name") or d.name
    doc = Doc(f"Sweep of {name}", d)
    summary = data.summary
    if data.flows.height and "goodput_bps" in data.flows.columns:
        gp = data.flows.group_by([*params, "seed"]).agg(pl.col("goodput_bps").mean().alias("mean_goodput_bps"))
        summary = summary.join(gp, on=[*params, "seed"], how="left") if summary.height else summary
    runs = summary.select([*params, "seed"]).unique().height if summary.height else 0
    doc.p(f"{runs} runs over {len(meta['seeds'])} seeds ({num(min(meta['seeds']))}..{num(max(meta['seeds']))}) "
          f"and {len(params)} parameter(s); {len(data.failures)} failed run(s). Each point is the mean over its "
          f"n seeds with its 95 % confidence interval (Student t, clipped to the metric's range: no FCT, count or "
          f"rate below 0), or the min-max of its values where n < {MIN_SEEDS_FOR_CI}. Data: `polars.read_parquet(\"{d}/**/flows.parquet\", "
          f"hive_partitioning=True)` or `superpacket.load_sweep(\"{d}\")`.")
    doc.h("Parameters")
    if params:
        # a whole table as a value (`--param 'path={kind="red", ...}'`) as the loader's column
        # shows it: canonical JSON, not a Python dict
        def text(v: Any) -> str:
            return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)

        linked = meta.get("linked", {})
        rows = []
        for p, vals in sweep_load.axis_values(meta).items():
            if p in linked:  # a linked group: each label with the values it sets
                paths = linked[p]["paths"]
                rows.append([f"{p} (linked)", "; ".join(
                    f"{lb}: " + ", ".join(f"{q}={text(meta['params'][q][i])}" for q in paths)
                    for i, lb in enumerate(vals))])
            else:
                rows.append([p, "; ".join(text(v) for v in vals) if any(isinstance(v, dict) for v in vals)
                             else ", ".join(text(v) for v in vals)])
        doc.table(["parameter", "values"], rows)
    else:
        doc.p("None: the base scenario over seeds.")
    metrics = [m for m in _SWEEP_METRICS if m in summary.columns and summary[m].dtype.is_numeric()
               and summary[m].cast(pl.Float64).drop_nulls().drop_nans().len() > 0]
    groups = _sweep_groups(summary, params, metrics)
    if groups:
        doc.h("Results")
        head = [*params, "seeds"] + [f"{m}: mean [interval] n" for m in metrics]
        doc.table(head, [[*(str(v) for v in key), n] + [ci_text(*stats[m]) for m in metrics]
                         for key, n, stats in groups])
        # x: the first parameter that takes more than one value; a line per value of the others
        axes = sweep_load.axis_values(meta)
        varying = [i for i, p in enumerate(params) if len(axes[p]) > 1]
        xi = varying[0] if varying else None
        xparam = params[xi] if xi is not None else "(a single parameter point)"
        for m in metrics:
            if len({ci_text(*stats[m]) for _, _, stats in groups}) == 1 and len(groups) > 1:
                continue  # the same everywhere: the table says it
            series: dict[str, list[tuple[Any, float, float, float, int]]] = {}
            for key, n, stats in groups:
                label = " ".join(f"{params[i]}={key[i]}" for i in varying if i != xi)
                x = key[xi] if xi is not None else "all runs"
                series.setdefault(label, []).append((x, *stats[m]))
            doc.figure(figures.sweep_metric(m, xparam, series), f"sweep_{m}",
                       f"{m} against {xparam}: mean over seeds with its interval (n as in the table)"
                       + (", one line per value of the other parameters" if len(varying) > 1 else ""))
    if data.failures:
        doc.h("Failed runs")
        doc.table(["run", "error"], [[f["dir"], f["error"]] for f in data.failures])
    doc.h("Scenario")
    doc.p("The base scenario; every run folder holds the exact scenario.toml it ran (with its parameters and seed).")
    doc.pre(_toml.dumps(meta["scenario"]))
    return doc


def _sweep_groups(summary: Any, params: list[str],
                  metrics: list[str]) -> list[tuple[tuple[Any, ...], int, dict[str, tuple[float, float, float, int]]]]:
    """(parameter values, seeds, metric -> (mean, lo, hi, n)) per parameter point, sorted;
    n: the seeds with a value of the metric."""
    if not summary.height or not metrics:
        return []
    out = []
    keys = params or ["__all"]
    df = summary if params else summary.with_columns(__all=0)
    # in the loader's order (load_sweep sorts by the parameters, a linked group in the
    # order its points were given)
    for key, g in df.group_by(keys, maintain_order=True):
        stats = {}
        for m in metrics:
            xs = [float(x) for x in g[m].to_list() if x is not None and not math.isnan(float(x))]
            stats[m] = (*mean_ci95(xs, m), len(xs))
        out.append((tuple(key) if params else (), g.height, stats))
    return out
