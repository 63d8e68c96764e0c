"""Statistics done by hand for the tests, independently of
superpacket.experiments.common (which reads t from a table): the two-sided 95 % Student
t quantile found from the t density itself (integrated numerically), and the mean of
some per-seed values with the half-width of its 95 % confidence interval, and the
interval a summary must report for them (min-max below 3 values, the CI clipped to the
metric's range from 3)."""

import functools
import math

import pytest


def t_pdf(x: float, df: int) -> float:
    # f(x) = Gamma((df + 1) / 2) / (sqrt(df pi) Gamma(df / 2)) * (1 + x^2 / df)^(-(df + 1) / 2)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return c * (1.0 + x * x / df) ** (-(df + 1) / 2)


def t_cdf(x: float, df: int, steps: int = 2000) -> float:
    """P(T <= x) for x >= 0: 1/2 + the integral of the density over [0, x], Simpson's rule
    (error about x h^4 max|f''''| / 180, below 1e-9 here)."""
    h = x / steps
    s = t_pdf(0.0, df) + t_pdf(x, df) + sum((4 if k % 2 else 2) * t_pdf(k * h, df) for k in range(1, steps))
    return 0.5 + s * h / 3.0


@functools.cache
def t975(df: int) -> float:
    """The t with P(T <= t) = 0.975 for `df` degrees of freedom, by bisection on t_cdf
    (to 20 / 2^34, about 1e-9)."""
    lo, hi = 0.0, 20.0  # t_{0.975, 1} = tan(0.475 pi) = 12.706 is the largest
    for _ in range(34):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_half_width(xs: list[float]) -> tuple[float, float]:
    """(mean, half-width of the 95 % CI of the mean) = (sum/n, t_{0.975, n-1} s / sqrt(n)),
    s the sample standard deviation (n - 1 in the denominator); one value: no spread to
    estimate, half-width 0 (mean_ci95's convention)."""
    n = len(xs)
    m = math.fsum(xs) / n
    if n == 1:
        return m, 0.0
    s = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t975(n - 1) * s / math.sqrt(n)


def assert_ci_of(mean: float, ci: list[float] | tuple[float, float], xs: list[float],
                 bounds: tuple[float, float] = (0.0, math.inf)) -> None:
    """A reported mean and interval are those of the per-seed values `xs`, recomputed
    here: with fewer than 3 values their [min, max]; from 3 the 95 % CI mean +- half-width,
    clipped to `bounds`, the metric's range (default: a non-negative metric, as every FCT,
    count, rate and ratio). mean_ci95's table rounds t to 3 decimals (at worst 0.0005 /
    2.042 = 2.5e-4 of the half-width), hence rel 5e-4 on an unclipped end."""
    m, h = mean_half_width(xs)
    lo, hi = ci
    tol = 1e-9 * (abs(m) + h) + 1e-12
    assert mean == pytest.approx(m, abs=tol)
    if len(xs) < 3:
        assert (lo, hi) == (min(xs), max(xs))
        return
    want_lo, want_hi = m - h, m + h
    if want_lo < bounds[0]:
        assert lo == bounds[0]  # clipped: the metric cannot go below its range
    else:
        assert lo == pytest.approx(want_lo, abs=5e-4 * h + tol)
    if want_hi > bounds[1]:
        assert hi == bounds[1]
    else:
        assert hi == pytest.approx(want_hi, abs=5e-4 * h + tol)
