"""superpacket.experiments.common.mean_ci95, the mean and 95 % confidence interval every
reported figure carries, against values derived by hand. It uses Student's t for up to
30 degrees of freedom (its table `_T95`, rounded to 3 decimals) and the normal 1.96
beyond."""

import math

import pytest
from handstats import t975
from superpacket.experiments.common import _T95, mean_ci95


def test_three_values_by_hand():
    # mean (1 + 2 + 3) / 3 = 2; deviations -1, 0, 1, sample variance (1 + 0 + 1) / (3 - 1) = 1,
    # s = 1; t_{0.975, 2} = 4.303 (closed form for 2 df: (2p - 1) / sqrt(2 p (1 - p)) at
    # p = 0.975: 0.95 / sqrt(0.04875) = 4.3027); half-width 4.303 * 1 / sqrt(3) = 2.484338
    m, lo, hi = mean_ci95([1.0, 2.0, 3.0])
    assert m == 2.0
    assert lo == pytest.approx(2.0 - 2.484338, abs=1e-6)  # -0.484338
    assert hi == pytest.approx(2.0 + 2.484338, abs=1e-6)  # 4.484338


def test_two_values_by_hand():
    # mean 2; deviations -1, 1, sample variance (1 + 1) / (2 - 1) = 2, s = sqrt(2);
    # t_{0.975, 1} = tan(0.475 pi) = 12.706 (the Cauchy quantile);
    # half-width 12.706 * sqrt(2) / sqrt(2) = 12.706
    assert mean_ci95([1.0, 3.0]) == pytest.approx((2.0, 2.0 - 12.706, 2.0 + 12.706), abs=1e-9)


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
