"""The few distribution functions mopt needs, from ``scipy.special`` rather than ``scipy.stats``.

Importing ``scipy.stats`` costs about a second (it builds some hundred distribution objects), more
than the rest of a small run; every command paid it. These are the same formulas ``scipy.stats``
evaluates (its ``_ppf`` and ``_cdf`` of ``norm``, ``t``, ``chi2`` and ``lognorm``, then ``* scale +
loc``), so the values are the same bits: the recorded outputs (``tests/cli/test_output_hashes.py``)
and journals' fingerprints do not change. ``tests/core/test_quantiles.py`` compares them with
``scipy.stats`` on grids, edges included.

Examples
--------
>>> round(float(t_ppf(0.975, 9)), 4), round(float(norm_ppf(0.975)), 4)
(2.2622, 1.96)
>>> fs = ShiftedLognormal(0.5, 1000.0, 937.0)
>>> round(float(fs.mean()), 1), fs.dist.name
(2061.8, 'lognorm')
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

__all__ = ["norm_ppf", "norm_cdf", "t_ppf", "chi2_ppf", "ShiftedLognormal"]


def norm_ppf(q):
    """The standard normal quantile (``scipy.stats.norm.ppf``)."""
    return sc.ndtri(q)


def norm_cdf(x):
    """The standard normal distribution function (``scipy.stats.norm.cdf``)."""
    return sc.ndtr(x)


def t_ppf(q, df):
    """Student's t quantile with ``df`` degrees of freedom (``scipy.stats.t.ppf``; at q = 0 the
    support's edge, -inf, where ``stdtrit`` alone gives +inf)."""
    q = np.asarray(q, dtype=float)
    out = np.where(q == 0, -np.inf, sc.stdtrit(df, q))
    return out[()] if out.ndim == 0 else out


def chi2_ppf(p, df):
    """The chi-square quantile with ``df`` degrees of freedom (``scipy.stats.chi2.ppf``)."""
    return 2 * sc.gammaincinv(np.asarray(df) / 2, p)


class _Name:
    """``fs.dist.name``, as a frozen ``scipy.stats`` distribution has it."""

    name = "lognorm"


class ShiftedLognormal:
    """A lognormal of log-space ``s``, shifted by ``loc`` and scaled by ``scale``: the frozen
    ``scipy.stats.lognorm(s=s, loc=loc, scale=scale)``, for the methods mopt calls (``ppf``, ``cdf``,
    ``mean``)."""

    dist = _Name()

    def __init__(self, s: float, loc: float, scale: float):
        self.s, self.loc, self.scale = float(s), float(loc), float(scale)

    def ppf(self, q):
        """Quantiles: ``exp(s * ndtri(q)) * scale + loc`` in (0, 1); ``loc`` at 0, inf at 1, NaN outside."""
        q = np.asarray(q, dtype=float)
        with np.errstate(all="ignore"):
            out = np.exp(self.s * sc.ndtri(q)) * self.scale + self.loc
        out = np.where(q == 0, self.loc, np.where(q == 1, np.inf, out))
        out = np.where((q >= 0) & (q <= 1), out, np.nan)
        return out[()] if out.ndim == 0 else out

    def cdf(self, x):
        """``ndtr(log((x - loc) / scale) / s)`` above ``loc``, 0 at or below it."""
        x = np.asarray(x, dtype=float)
        z = (x - self.loc) / self.scale
        with np.errstate(all="ignore"):
            out = np.where(z > 0, sc.ndtr(np.log(np.where(z > 0, z, 1.0)) / self.s), 0.0)
        out = np.where(np.isnan(x), np.nan, out)
        return out[()] if out.ndim == 0 else out

    def mean(self) -> float:
        """``sqrt(exp(s²)) * scale + loc``, as scipy computes it."""
        return float(np.sqrt(np.exp(self.s * self.s)) * self.scale + self.loc)

    def __repr__(self) -> str:
        return f"ShiftedLognormal(s={self.s!r}, loc={self.loc!r}, scale={self.scale!r})"
