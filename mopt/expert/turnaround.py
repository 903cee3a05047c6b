"""The turnaround model F(t, t') = F_s(t)·γ(t') of ExPERT (Eq. 1).

F_s is the CDF of turnaround times of instances that return a result; γ(t') is the probability
that an instance sent at time t' returns a result at all.  The model is built parametrically
(:meth:`TurnaroundModel.parametric`) or from observed instances
(:meth:`TurnaroundModel.from_instances`, offline or online γ with the paper's three epochs).

The simulator samples a successful turnaround as ``fs_table[int(u · len(fs_table))]``: the sorted
sample for an observed model (exactly the empirical CDF), and 65,536 equiprobable quantiles for a
parametric one.  γ is piecewise constant in the send time.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np

from mopt.core.errors import InputError, check_number

__all__ = ["TurnaroundModel"]

_RESOLUTION = 65536


def _as_times(name: str, values, *, allow_inf: bool) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' must be a sequence of numbers; got {type(values).__name__}.") from None
    if arr.size == 0:
        raise InputError(f"'{name}' must not be empty; got 0 values.")
    bad = np.isnan(arr) | (arr < 0) | (~allow_inf & np.isinf(arr))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        what = "non-negative numbers (inf = no result)" if allow_inf else "finite non-negative numbers"
        raise InputError(f"'{name}' must hold {what}; got {arr[k]} at position {k}.")
    return arr


class TurnaroundModel:
    """F(t, t') = F_s(t)·γ(t'): successful-turnaround CDF times reliability by send time.

    Use the constructors :meth:`parametric` and :meth:`from_instances`.

    Attributes
    ----------
    fs_table : ndarray
        Sorted successful turnaround times; sampling ``fs_table[int(u·len)]`` draws from F_s.
    gamma_breaks, gamma_values : ndarray
        γ(t') = ``gamma_values[k]`` for the last ``k`` with ``gamma_breaks[k] <= t'``
        (``gamma_values[0]`` before the first break).  Unused when γ is a callable.
    description : str
    """

    def __init__(self, fs_table, gamma_breaks, gamma_values, *, description: str = "",
                 gamma_function: Callable | None = None, epochs: dict | None = None):
        self.fs_table = np.asarray(fs_table, dtype=float)
        self.gamma_breaks = np.asarray(gamma_breaks, dtype=float)
        self.gamma_values = np.asarray(gamma_values, dtype=float)
        self.gamma_function = gamma_function
        self.description = description
        #: online model only: mean reliability of the full- and partial-knowledge epochs
        self.epochs = epochs or {}

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def parametric(cls, fs, reliability) -> TurnaroundModel:
        """A model from a distribution of successful turnarounds and a reliability.

        Parameters
        ----------
        fs : scipy.stats frozen distribution
            Distribution of turnaround times of instances that return a result (support ≥ 0).
        reliability : float or callable
            γ, a probability in [0, 1], or a function of the send time t' returning one.

        Examples
        --------
        >>> from scipy import stats
        >>> m = TurnaroundModel.parametric(stats.uniform(1000, 200), 0.8)
        >>> round(float(m.success_cdf(1100)), 3), float(m.reliability(0.0))
        (0.5, 0.8)
        """
        if not hasattr(fs, "ppf"):
            raise TypeError(f"'fs' must be a scipy.stats frozen distribution; got {type(fs).__name__}.")
        u = (np.arange(_RESOLUTION) + 0.5) / _RESOLUTION
        with np.errstate(all="ignore"):  # non-finite quantiles are reported below, not as warnings
            table = np.asarray(fs.ppf(u), dtype=float)
        if not np.all(np.isfinite(table)) or table.min() < 0:
            raise InputError(
                "'fs' must be a distribution of non-negative, finite turnaround times; "
                f"its quantiles range over [{np.nanmin(table)}, {np.nanmax(table)}]."
            )
        name = getattr(getattr(fs, "dist", None), "name", type(fs).__name__)
        if callable(reliability):
            g0 = reliability(0.0)
            check_number("reliability(0)", g0, low=0, high=1)
            return cls(table, [0.0], [float(g0)], gamma_function=reliability,
                       description=f"F_s={name}, γ=function of send time")
        if isinstance(reliability, bool) or not isinstance(reliability, numbers.Real):
            raise TypeError(f"'reliability' must be a number or a function of send time; got {reliability!r}.")
        g = check_number("reliability", reliability, low=0, high=1)
        return cls(table, [0.0], [g], description=f"F_s={name}, γ={g:g}")

    @classmethod
    def from_instances(cls, send_times, turnaround_times, deadline: float, t_tail: float | None = None,
                       *, group_size: int = 50) -> TurnaroundModel:
        """A model from observed instances (send time, turnaround or ``inf`` for "no result").

        Parameters
        ----------
        send_times, turnaround_times : array_like
            One entry per instance; a turnaround ≥ ``deadline`` or ``inf`` counts as no result.
        deadline : float
            Deadline D of the observed instances.
        t_tail : float or None
            None: **offline** γ (every result known).  A time: **online** γ as known at T_tail, with
            the paper's three epochs — full knowledge (t' < T_tail − D: as offline), partial
            knowledge (Eq. 2: γ ≈ F̂(T_tail − t', t') / F_s1(T_tail − t'), clipped to
            [lowest full-knowledge γ, 1]) and zero knowledge (t' ≥ T_tail: the equal-weight mean of
            the two epochs' mean reliabilities).  F_s is then F_s1, the CDF of the full-knowledge
            epoch's results.
        group_size : int
            γ is computed for disjoint groups of this many consecutively sent instances.

        Examples
        --------
        >>> send = [0, 10, 20, 30]
        >>> turn = [1000, float("inf"), 1200, 1100]
        >>> m = TurnaroundModel.from_instances(send, turn, deadline=4000, group_size=2)
        >>> m.reliability([0, 25, 99]).tolist(), sorted(m.fs_table.tolist())
        ([0.5, 1.0, 0.75], [1000.0, 1100.0, 1200.0])
        """
        send = _as_times("send_times", send_times, allow_inf=False)
        turn = _as_times("turnaround_times", turnaround_times, allow_inf=True)
        if send.shape != turn.shape:
            raise InputError(
                f"'send_times' and 'turnaround_times' must have the same length; got {send.size} and {turn.size}."
            )
        deadline = check_number("deadline", deadline, low=0, low_open=True)
        if isinstance(group_size, bool) or not isinstance(group_size, numbers.Integral) or group_size < 1:
            raise InputError(f"'group_size' must be an integer >= 1; got {group_size!r}.")
        order = np.argsort(send, kind="stable")
        send, turn = send[order], turn[order]
        success = turn < deadline
        if t_tail is None:
            if not success.any():
                raise InputError("'turnaround_times' has no result before the deadline; F_s cannot be estimated.")
            breaks, values = _groups(send, success.astype(float), group_size)
            pooled = float(success.mean())
            return cls(np.sort(turn[success]), np.r_[breaks, send[-1] + 1e-9], np.r_[values, pooled],
                       description=f"observed: {send.size} instances, offline γ")
        t_tail = check_number("t_tail", t_tail, low=0)
        full = send < t_tail - deadline
        if not full.any():
            raise InputError(
                f"'t_tail'={t_tail:g} leaves no full-knowledge epoch: every instance was sent after "
                f"t_tail - deadline = {t_tail - deadline:g}; observe longer or use t_tail=None."
            )
        partial = (send >= t_tail - deadline) & (send < t_tail)
        s1 = success & full
        if not s1.any():
            raise InputError("the full-knowledge epoch has no result; F_s cannot be estimated.")
        fs1 = np.sort(turn[s1])
        b1, v1 = _groups(send[full], success[full].astype(float), group_size)
        gamma_min = float(v1.min())
        mean_full = float(success[full].mean())
        breaks, values = [b1], [v1]
        mean_partial = None
        if partial.any():
            sp, tp = send[partial], turn[partial]
            known = (tp < deadline) & (sp + tp <= t_tail)  # results already returned at T_tail
            window = np.minimum(t_tail - sp, deadline)
            expected = np.searchsorted(fs1, window, side="right") / fs1.size  # F_s1(T_tail - t')
            b2, v2, informed, counts = [], [], [], []
            previous = float(v1[-1])
            for k in range(0, sp.size, group_size):
                sl = slice(k, k + group_size)
                denom = expected[sl].sum()
                # Eq. 2; a group sent too recently for any result to be expected (F_s1 = 0 for all
                # its instances) carries no information: it keeps the previous group's γ and is
                # left out of the epoch's mean
                g = min(max(known[sl].sum() / denom, gamma_min), 1.0) if denom > 0 else previous
                b2.append(sp[sl][0])
                v2.append(g)
                informed.append(denom > 0)
                counts.append(sp[sl].size)
                previous = g
            breaks.append(np.array(b2))
            values.append(np.array(v2))
            informed = np.array(informed)
            if informed.any():
                mean_partial = float(np.average(np.array(v2)[informed], weights=np.array(counts)[informed]))
        zero = mean_full if mean_partial is None else 0.5 * (mean_full + mean_partial)
        return cls(
            fs1,
            np.r_[np.concatenate(breaks), t_tail],
            np.r_[np.concatenate(values), zero],
            description=f"observed: {send.size} instances, online γ at T_tail={t_tail:g}",
            epochs={"full": mean_full, "partial": mean_partial, "zero": zero},
        )

    # -- queries -----------------------------------------------------------------------------
    def reliability(self, send_time) -> np.ndarray:
        """γ(t') for send times ``send_time``."""
        t = np.asarray(send_time, dtype=float)
        if self.gamma_function is not None:
            return np.vectorize(lambda x: float(self.gamma_function(x)))(t)
        k = np.searchsorted(self.gamma_breaks, t, side="right") - 1
        return self.gamma_values[np.clip(k, 0, len(self.gamma_values) - 1)]

    def success_cdf(self, t) -> np.ndarray:
        """F_s(t) = P(turnaround ≤ t | a result returns)."""
        return np.searchsorted(self.fs_table, np.asarray(t, dtype=float), side="right") / self.fs_table.size

    def cdf(self, t, send_time) -> np.ndarray:
        """F(t, t') = F_s(t)·γ(t')."""
        return self.success_cdf(t) * self.reliability(send_time)

    def success_before(self, deadline: float) -> float:
        """F_s(D⁻): probability that a successful instance's turnaround is strictly below ``deadline``."""
        return float(np.searchsorted(self.fs_table, deadline, side="left") / self.fs_table.size)

    @property
    def mean_success(self) -> float:
        """Mean turnaround of successful instances (the model's t_ur)."""
        return float(self.fs_table.mean())

    def tables(self, step: float, horizon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Arrays for the simulator: ``fs_table``, ``gamma_breaks``, ``gamma_values``.

        A callable γ is tabulated every ``step`` seconds up to ``horizon`` (constant after it).
        """
        if self.gamma_function is None:
            return self.fs_table, self.gamma_breaks, self.gamma_values
        breaks = np.arange(0.0, horizon + step, step)
        values = np.array([float(self.gamma_function(t)) for t in breaks])
        if np.isnan(values).any() or values.min() < 0 or values.max() > 1:
            k = int(np.flatnonzero(np.isnan(values) | (values < 0) | (values > 1))[0])
            raise InputError(f"'reliability' must return a probability in [0, 1]; got {values[k]} at t'={breaks[k]:g}.")
        return self.fs_table, breaks, values

    def __repr__(self) -> str:
        return f"TurnaroundModel({self.description})"


def _groups(send: np.ndarray, success: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """γ per group of ``size`` consecutively sent instances: (first send time, success fraction)."""
    starts = np.arange(0, send.size, min(size, send.size))  # a larger group: the whole log
    values = np.add.reduceat(success, starts) / np.diff(np.r_[starts, send.size])
    return send[starts], values
