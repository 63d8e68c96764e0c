"""The figures' error bars follow the intervals' rule (experiments.common.mean_ci95): the
min-max of 2 seeds, the 95 % CI clipped at the metric's range from 3; the legend names
the interval and n. Checked on the drawn error bars themselves."""

import matplotlib.pyplot as plt
import pytest
from superpacket.experiments.common import summarize
from superpacket.reports import figures


def drawn_bars(fig):
    """(low, high) of each vertical error bar drawn in the figure's first axes."""
    ax = fig.axes[0]
    out = []
    for c in ax.containers:
        if hasattr(c, "lines") and c.lines[2]:
            for seg in c.lines[2][0].get_segments():
                (_, y0), (_, y1) = seg
                out.append((min(y0, y1), max(y0, y1)))
    return out


def test_two_seeds_draw_their_min_max():
    # 2 seeds of a mean FCT, 1.8735 and 0.4: the bar runs from 0.4 to 1.8735 (a t interval
    # would run from -8.22 to 10.50)
    variants = summarize({"droptail": {"mean_fct_s": [1.8735, 0.4]}})
    fig = figures.bars_vs_paper("mean_fct_s", variants, {}, 2)
    assert drawn_bars(fig) == [pytest.approx((0.4, 1.8735))]
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "ours: mean, min-max, n = 2" in labels
    plt.close(fig)


def test_three_seeds_never_below_zero():
    # [0.1, 0.1, 5.0]: mean 1.733333, t half-width 7.028233 (tests/experiments/test_common.py): the bar
    # runs from 0 (clipped) to 8.761567
    variants = summarize({"droptail": {"mean_fct_s": [0.1, 0.1, 5.0]}})
    fig = figures.bars_vs_paper("mean_fct_s", variants, {}, 3)
    (lo, hi), = drawn_bars(fig)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(8.761567, abs=1e-6)
    assert "ours: mean, 95 % CI, n = 3" in fig.axes[0].get_legend_handles_labels()[1]
    plt.close(fig)


def test_per_flow_bars_follow_the_rule():
    # incast's per-flow figure computes its bars from the per-flow FCTs: flow 0 over 2
    # seeds (0.2, 1.2) -> [0.2, 1.2]
    per_flow = {"droptail": [{"fct_s": [0.2], "timeouts": [0]}, {"fct_s": [1.2], "timeouts": [1]}]}
    fig = figures.per_flow_fct(per_flow, {}, {"droptail": {"mean_fct_s": 0.7}})
    assert drawn_bars(fig) == [pytest.approx((0.2, 1.2))]
    plt.close(fig)
