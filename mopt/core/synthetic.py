"""NormalProblem: designs with known means and normal noise, for testing and comparing methods.

Replication ``r`` of design ``i`` is ``means[i] + sd[i] * z`` with ``z`` standard normal, drawn from
replication ``r``'s stream (one draw per design and objective, so designs are independent and the
values do not depend on which designs are asked together).  Because the means are known, the
ground truth of :func:`mopt.compare` is exact.
"""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError, check_array
from mopt.core.problem import IndexedProblem, _objective_names
from mopt.core.random import replication_rng

__all__ = ["NormalProblem"]


def _table(name: str, values, shape=None) -> np.ndarray:
    """A (n_designs, n_obj) table of finite numbers; a vector is one objective, and with ``shape``
    anything that broadcasts to it (e.g. one sd for every design) is accepted."""
    try:
        ndim = np.ndim(values)
    except (TypeError, ValueError):  # ragged nested sequences
        raise InputError(f"'{name}' must be a 1-d sequence or a 2-d table of numbers (rows of "
                         f"equal length); got {values!r}.") from None
    values = values if ndim else [values]
    arr = check_array(name, values, ndim=1 if ndim <= 1 else 2)
    if arr.ndim == 1:
        arr = arr[:, None]
    if shape is not None:
        try:
            arr = np.broadcast_to(arr, shape).copy()
        except ValueError:
            raise InputError(f"'{name}' must have shape {shape} (or broadcast to it); got {arr.shape}.") from None
    return check_array(name, arr, ndim=2)


class NormalProblem(IndexedProblem):
    """Designs ``0 .. n-1`` whose objectives are ``means`` plus normal noise of std ``sd``.

    Parameters
    ----------
    means : array_like, shape (n_designs,) or (n_designs, n_obj)
    sd : float or array_like broadcasting to the shape of ``means``
    objectives : sequence of str or None
        Names (None: ``f1, f2, ...``).

    Examples
    --------
    >>> prob = NormalProblem([1.0, 2.0, 3.0], sd=0.0)
    >>> prob.replicate([2, 0], [0, 1], seed=1)[:, :, 0].tolist()
    [[3.0, 3.0], [1.0, 1.0]]
    """

    parameter_names = ("i",)

    def __init__(self, means, sd=1.0, *, objectives=None, n_reps: int = 10, seed: int = 0):
        self.means = _table("means", means)
        self.sd = check_array("sd", _table("sd", sd, self.means.shape), ndim=2, nonnegative=True)
        n, k = self.means.shape
        if objectives is None:
            objectives = tuple(f"f{j + 1}" for j in range(k))
        objectives = _objective_names(objectives, self.parameter_names)
        if len(objectives) != k:
            raise InputError(f"'objectives' must name the {k} columns of 'means'; got {len(objectives)}.")
        super().__init__(objectives=objectives, n_designs=n, n_reps=n_reps, seed=seed)

    def decode(self, x) -> dict:
        return {"i": self.index(x)}

    def _replicate(self, indices, reps, entropy):
        z = np.stack([replication_rng(entropy, r).standard_normal(self.means.shape) for r in reps], axis=1)
        return self.means[indices, None, :] + self.sd[indices, None, :] * z[indices]

    def _identity(self) -> dict:
        return {**super()._identity(), "means": self.means.tolist(), "sd": self.sd.tolist()}
