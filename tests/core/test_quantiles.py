"""mopt.core.quantiles gives scipy.stats's values bit for bit (without importing scipy.stats)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mopt.core.quantiles import ShiftedLognormal, chi2_ppf, norm_cdf, norm_ppf, t_ppf

Q = np.concatenate([[0.0, 1e-300, 1e-12, 0.5 / 65536], np.linspace(0, 1, 1001)[1:-1],
                    [1 - 0.5 / 65536, 1 - 1e-12, 1.0, -0.1, 1.1, np.nan]])


def same(a, b) -> bool:
    """Equal values, bit for bit where not NaN (NaN where scipy gives NaN, whatever its payload)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    nan = np.isnan(a)
    return (a.shape == b.shape and np.array_equal(nan, np.isnan(b))
            and a[~nan].tobytes() == b[~nan].tobytes())


def test_normal_and_t_and_chi2_are_scipys_bits():
    assert same(norm_ppf(Q), stats.norm.ppf(Q))
    z = np.linspace(-40, 40, 2001)
    assert same(norm_cdf(z), stats.norm.cdf(z))
    for df in (1, 2, 4, 9, 29, 99, 1e6):
        assert same(t_ppf(Q, df), stats.t.ppf(Q, df)), df
    for df in (1, 2, 3, 5, 9):
        assert same(chi2_ppf(Q, df), stats.chi2.ppf(Q, df)), df


@pytest.mark.parametrize("s, loc, scale", [(0.5, 1000.0, 937.1), (0.1, 0.0, 1.0), (1.5, 1484.0, 140.2), (3.0, 5.0, 1e-3)])
def test_the_shifted_lognormal_is_scipys_lognorm(s, loc, scale):
    mine, theirs = ShiftedLognormal(s, loc, scale), stats.lognorm(s=s, loc=loc, scale=scale)
    assert same(mine.ppf(Q), theirs.ppf(Q))
    u = (np.arange(65536) + 0.5) / 65536  # the turnaround model's table
    assert same(mine.ppf(u), theirs.ppf(u))
    x = np.concatenate([[loc - 1, loc, np.nan], loc + scale * np.logspace(-6, 4, 500)])
    assert same(mine.cdf(x), theirs.cdf(x))
    assert mine.mean() == float(theirs.mean())
    assert float(mine.ppf(0.3)) == float(theirs.ppf(0.3)) and np.ndim(mine.ppf(0.3)) == 0
