"""Experiment-specific report figures (superpacket.experiments.figures): each experiment
is reproduced at a tiny scale (real runs, a few seconds each), its summary.json written
as `superpacket reproduce --out` writes it, and `superpacket report` must draw the
paper's figures from that data, save them as PNG and SVG and reference them in
report.md and report.html; the plotted arrays must be the summary's."""

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import pytest
from superpacket import reports
from superpacket.experiments import EXPERIMENTS, jumbo, loss_sensitivity, riops_goodput, riops_web
from superpacket.reports import figure_kit

SMALL = {
    "jumbo": lambda: jumbo.run(seeds=2, duration_s=3.0),
    "loss-sensitivity": lambda: loss_sensitivity.run(seeds=1, runs=5),
    "riops-goodput": lambda: riops_goodput.run(seeds=1, duration_s=30.0),
    "riops-web": lambda: riops_web.run(seeds=1, duration_s=60.0, warmup_s=20.0, verbose=False),
}
EXPECTED = {
    "jumbo": ["jumbo_fig6_throughput"],
    "loss-sensitivity": ["loss_mean_time", "loss_cov"],
    "riops-goodput": ["riops_goodput_bars", "riops_goodput_utilization"],
    "riops-web": ["riops_web_response_rel_red", "riops_web_fairness", "riops_web_queue_series"],
}


@pytest.fixture(scope="module", params=list(SMALL))
def reported(request, tmp_path_factory) -> tuple[str, Path, dict]:
    name = request.param
    d = tmp_path_factory.mktemp(name)
    summary = SMALL[name]()
    (d / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")  # as the CLI does
    reports.report(d)
    return name, d, json.loads((d / "summary.json").read_text())


def same(a: list, b: list) -> bool:
    return len(a) == len(b) and all((math.isnan(x) and (y is None or math.isnan(y))) or x == pytest.approx(y)
                                    for x, y in zip(a, b, strict=True))


def test_figures_written_and_referenced(reported):
    name, d, _ = reported
    md = (d / "report.md").read_text()
    page = (d / "report.html").read_text()
    for n in EXPECTED[name]:
        img = mpimg.imread(d / "figures" / f"{n}.png")
        assert img.shape[0] > 100 and img.shape[1] > 100, n
        assert img[..., :3].std() > 0.05, f"{n}.png is blank"
        assert (d / "figures" / f"{n}.png").stat().st_size < 400_000, f"{n}.png is big"
        assert ET.parse(d / "figures" / f"{n}.svg").getroot().tag.endswith("svg"), n
        assert f"](figures/{n}.png)" in md and f"(figures/{n}.svg)" in md, n
        assert f'href="figures/{n}.svg"' in page, n
    assert "The paper&#x27;s figures, redrawn from our data" in page or "The paper's figures" in page


def built(s: dict) -> dict[str, figure_kit.ExpFigure]:
    out = {f.name: f for f in figure_kit.build(s)}
    return out


def test_plotted_data_is_the_summarys(reported):
    name, _, s = reported
    figs = built(s)
    assert sorted(figs) == sorted(EXPECTED[name])
    try:
        if name == "jumbo":
            f = figs["jumbo_fig6_throughput"]
            assert list(f.data) == ["jumbo", "sp", "jumbo-bytes", "sp-bytes"]  # Fig. 6a, 6b, then the extras
            for v, x in s["series"].items():
                for k in ("t_s", "special_kBps", "regular_mean_kBps"):
                    assert same(f.data[v][k], x[k]), (v, k)
                assert f.data[v]["paper_special_kBps"] == s["paper"][v]["special_kBps"]
                assert f.data[v]["paper_regular_mean_kBps"] == s["paper"][v]["regular_mean_kBps"]
            # and what the axes hold: two series lines and two dashed paper lines per panel
            ax = f.fig.axes[0]
            ys = [list(line.get_ydata()) for line in ax.lines]
            assert same(ys[0], s["series"]["jumbo"]["special_kBps"])
            assert same(ys[1], s["series"]["jumbo"]["regular_mean_kBps"])
            assert [y[0] for y in ys[2:]] == [s["paper"]["jumbo"]["special_kBps"],
                                              s["paper"]["jumbo"]["regular_mean_kBps"]]
            assert all(line.get_linestyle() == "--" for line in ax.lines[2:])
        elif name == "loss-sensitivity":
            for fig_name, table in (("loss_mean_time", "table_mean_time_s"), ("loss_cov", "table_cov")):
                f = figs[fig_name]
                assert set(f.data) == set(s[table])
                for nk, row in s[table].items():
                    ps = sorted(row, key=lambda k: float(k[1:]))
                    assert f.data[nk]["p"] == [float(p[1:]) for p in ps]
                    assert same(f.data[nk]["y"], [row[p] for p in ps])
                    # the variant's mean is the table's value
                    metric = "mean_time_s" if table == "table_mean_time_s" else "cov"
                    assert same(f.data[nk]["y"], [s["variants"][f"{nk}-{p}"][metric] for p in ps])
            assert figs["loss_mean_time"].fig.axes[0].get_yscale() == "log"
            assert "p0" in s["table_mean_time_s"]["n4"]  # the no-loss baseline is drawn
        elif name == "riops-goodput":
            f = figs["riops_goodput_bars"]
            assert set(f.data) == set(s["variants"])
            for v, ms in s["variants"].items():
                assert same(f.data[v]["ours"], [ms[f"goodput_{c}_pkts"] for c in ("all", "short", "long")])
                assert same(f.data[v]["paper"], [s["paper"][v][f"goodput_{c}_pkts"] for c in ("all", "short", "long")])
            u = figs["riops_goodput_utilization"]
            assert set(u.data) == set(s["series"])
            for v, x in s["series"].items():
                for k in ("t_s", "util_short", "util_long"):
                    assert same(u.data[v][k], x[k]), (v, k)
        elif name == "riops-web":
            f = figs["riops_web_response_rel_red"]
            for v, ms in s["variants"].items():
                assert same(f.data[v], [ms[f"response_{b}_rel_red"] for b in ("short", "medium", "long")]), v
                # relative to RED means: per seed, this variant's mean response time over RED's
                # in the same experiment and seed, then the mean over seeds (RED's own row is
                # then 1 by construction; the other rows test the pairing)
                red = s["variants"][f"{v.split('/')[0]}/red"]
                for b in ("short", "medium", "long"):
                    k = f"mean_response_{b}_s"
                    per_seed = [x / r for x, r in zip(ms[f"{k}_per_seed"], red[f"{k}_per_seed"], strict=True)]
                    assert same([ms[f"response_{b}_rel_red"]], [math.fsum(per_seed) / len(per_seed)]), (v, b)
            for e, cuts in s["paper_response_cut_pct"].items():
                for b, rng in cuts.items():
                    assert f.data["paper_rel"][f"{e}/{b}"] == pytest.approx(sorted(1 - c / 100 for c in rng))
            # panels in the experiment's order, not summary.json's sorted one
            assert [ax.get_title() for ax in f.fig.axes] == list(riops_web.EXPERIMENTS)
            fa = figs["riops_web_fairness"]
            for v, ms in s["variants"].items():
                e, k = v.split("/")
                for c in ("short", "long"):
                    assert same([fa.data[f"{e}/{c}"][k]], [ms[f"fairness_{c}"]]), (v, c)
            q = figs["riops_web_queue_series"]
            assert set(q.data) == set(s["series"])
            for v, x in s["series"].items():
                for k in ("t_s", "queue_pkts", "drop_mark_rate"):
                    assert same(q.data[v][k], x["queue"][k]), (v, k)
    finally:
        for f in figs.values():
            plt.close(f.fig)


def test_no_builder_no_figures():
    assert figure_kit.build({"experiment": "incast", "variants": {}}) == []
    assert {n for n, e in EXPERIMENTS.items() if e.figures} >= set(EXPECTED)
