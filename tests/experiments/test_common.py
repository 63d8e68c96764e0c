"""superpacket.experiments.common.mean_ci95, the mean and the interval every reported
figure carries, against values derived by hand. From 3 values: the 95 % confidence
interval of the mean, Student's t for up to 30 degrees of freedom (its table `_T95`,
rounded to 3 decimals) and the normal 1.96 beyond, clipped to the metric's range; with 2
values their min and max; with 1 the value."""

import math

import pytest
from handstats import t975
from superpacket.experiments.common import _T95, interval_kind, mean_ci95, metric_range


def test_three_values_by_hand():
    # mean (1 + 2 + 3) / 3 = 2; deviations -1, 0, 1, sample variance (1 + 0 + 1) / (3 - 1) = 1,
    # s = 1; t_{0.975, 2} = 4.303 (closed form for 2 df: (2p - 1) / sqrt(2 p (1 - p)) at
    # p = 0.975: 0.95 / sqrt(0.04875) = 4.3027); half-width 4.303 * 1 / sqrt(3) = 2.484338
    # (no metric named: no range to clip to)
    m, lo, hi = mean_ci95([1.0, 2.0, 3.0])
    assert m == 2.0
    assert lo == pytest.approx(2.0 - 2.484338, abs=1e-6)  # -0.484338
    assert hi == pytest.approx(2.0 + 2.484338, abs=1e-6)  # 4.484338


def test_two_values_are_their_min_max():
    # a = 1.8735 and b = 0.4 (seed order kept): mean (1.8735 + 0.4) / 2 = 1.13675; the interval
    # is [min, max] = [0.4, 1.8735], not the t interval: t_{0.975, 1} = 12.706, s = |a - b| /
    # sqrt(2) = 1.041922, half-width 12.706 * 1.041922 / sqrt(2) = 9.361145 would give
    # [-8.22, 10.50], a negative FCT
    assert mean_ci95([1.8735, 0.4], "mean_fct_s") == pytest.approx((1.13675, 0.4, 1.8735), abs=1e-12)
    # whatever the metric's range: a signed one gets the same [min, max]
    assert mean_ci95([3.0, -1.0], "cut") == (1.0, -1.0, 3.0)
    assert interval_kind(2) == "min-max" and interval_kind(1) == "one value"
    assert interval_kind(3) == interval_kind(31) == "95 % CI"


def test_interval_never_leaves_the_metric_range():
    # [0.1, 0.1, 5.0] as a mean FCT: mean 5.2 / 3 = 1.733333; deviations -1.633333 (twice),
    # 3.266667; squares 2.667778 x 2 + 10.671111 = 16.006667, variance 8.003333,
    # s = 2.829016; half-width 4.303 x 2.829016 / sqrt(3) = 7.028233: the t interval
    # [-5.294900, 8.761567] is clipped at 0 below (an FCT is >= 0), not above
    m, lo, hi = mean_ci95([0.1, 0.1, 5.0], "mean_fct_s")
    assert m == pytest.approx(1.733333, abs=1e-6)
    assert lo == 0.0
    assert hi == pytest.approx(8.761567, abs=1e-6)
    # the same values as a fraction (utilisation): clipped to [0, 1] on both sides
    m, lo, hi = mean_ci95([0.1, 0.1, 0.99], "utilisation")
    # mean 1.19 / 3 = 0.396667; deviations -0.296667 x 2, 0.593333; squares 0.088011 x 2 +
    # 0.352044 = 0.528067, variance 0.264033, s = 0.513842, half-width 4.303 x 0.513842 /
    # sqrt(3) = 1.276557: [-0.879890, 1.673223] -> [0, 1]
    assert (lo, hi) == (0.0, 1.0) and m == pytest.approx(0.396667, abs=1e-6)
    # a signed metric (a cut in %, how far one mean lies below another) keeps its t interval
    m, lo, hi = mean_ci95([1.0, 2.0, 3.0], "improvement_pct")
    assert (lo, hi) == pytest.approx((2.0 - 2.484338, 2.0 + 2.484338), abs=1e-6)


@pytest.mark.parametrize("name, expected", [
    ("mean_fct_s", (0.0, math.inf)), ("throughput_bps", (0.0, math.inf)), ("drops", (0.0, math.inf)),
    ("flows_with_timeout", (0.0, math.inf)), ("ratio", (0.0, math.inf)), ("mbs_error", (0.0, math.inf)),
    ("utilisation", (0.0, 1.0)), ("utilisation_r1_r2", (0.0, 1.0)), ("bottleneck_utilization", (0.0, 1.0)),
    ("drop_rate", (0.0, 1.0)), ("paced_loss_rate", (0.0, 1.0)), ("victim_admission_rate", (0.0, 1.0)),
    ("jain", (0.0, 1.0)), ("fairness_short", (0.0, 1.0)), ("short_share", (0.0, 1.0)),
    ("sp_denied_pct", (0.0, 100.0)), ("small_timeout_pct", (0.0, 100.0)),
    ("cut", (-math.inf, math.inf)), ("improvement_pct", (-math.inf, math.inf)), (None, (-math.inf, math.inf)),
])
def test_metric_ranges(name, expected):
    # what each metric is (README "Outputs"): a time, rate, count, ratio or relative error
    # (|measured - model| / model) is >= 0; utilisation, drop/loss/admission rates, Jain's
    # index, shares are fractions; *_pct a percentage of flows; a cut is signed
    assert metric_range(name) == expected


def test_equal_values_one_value_and_none():
    # no spread: s = 0, the interval is the mean itself
    assert mean_ci95([0.25, 0.25, 0.25, 0.25]) == pytest.approx((0.25, 0.25, 0.25), abs=1e-15)
    # one value: no spread to estimate; documented by the code as (m, m, m)
    assert mean_ci95([7.5]) == (7.5, 7.5, 7.5)
    assert all(math.isnan(x) for x in mean_ci95([]))


def test_t_up_to_30_degrees_of_freedom_then_normal():
    # n = 31 (30 df, the table's last entry): 15 zeros, 15 ones and 0.5: mean 15.5 / 31 = 0.5,
    # squares of deviations 30 x 0.25 + 0 = 7.5, variance 7.5 / 30 = 0.25, s = 0.5;
    # half-width 2.042 * 0.5 / sqrt(31) = 1.021 / sqrt(31) = 0.183377
    xs = [0.0, 1.0] * 15 + [0.5]
    m, lo, hi = mean_ci95(xs)
    assert m == pytest.approx(0.5, abs=1e-15)
    assert (hi - lo) / 2 == pytest.approx(0.183377, abs=1e-6)
    # n = 32 (31 df): 16 zeros and 16 ones: mean 0.5, squares 32 x 0.25 = 8, variance 8 / 31,
    # s / sqrt(32) = sqrt(8 / 31 / 32) = 1 / sqrt(124); the normal 1.96 is used:
    # half-width 1.96 / sqrt(124) = 0.176013 (Student's t_{0.975, 31} = 2.0395 would give 0.183155)
    m, lo, hi = mean_ci95([0.0, 1.0] * 16)
    assert m == 0.5
    assert (hi - lo) / 2 == pytest.approx(0.176013, abs=1e-6)


def test_t_table_against_the_t_density():
    """Each entry of `_T95` is t_{0.975, df} to 3 decimals: found here from the t density,
    integrated numerically (tests/handstats.py), and checked against the two closed forms."""
    assert t975(1) == pytest.approx(math.tan(0.475 * math.pi), abs=1e-8)  # 12.7062
    assert t975(2) == pytest.approx(0.95 / math.sqrt(2 * 0.975 * 0.025), abs=1e-8)  # 4.3027
    assert len(_T95) == 30
    for df, t in enumerate(_T95, start=1):
        assert abs(t - t975(df)) <= 0.0005 + 1e-9, (df, t, t975(df))
