"""Non-dominated filtering and hypervolume (moocore, which pymoo uses), all objectives minimised."""

from __future__ import annotations

import moocore
import numpy as np

from mopt.core.errors import InputError

__all__ = ["pareto_mask", "hypervolume"]


def pareto_mask(F) -> np.ndarray:
    """Boolean mask of the rows of ``F`` that no other row dominates (duplicates are all kept).

    Rows with a NaN are never efficient.

    Examples
    --------
    >>> pareto_mask([[1, 3], [2, 2], [3, 3], [2, 2]]).tolist()
    [True, True, False, True]
    """
    F = np.asarray(F, dtype=float)
    if F.ndim != 2:
        raise InputError(f"'F' must be a 2-d array of objective values; got shape {F.shape}.")
    mask = np.zeros(len(F), dtype=bool)
    ok = ~np.isnan(F).any(axis=1)
    if ok.any():
        mask[ok] = moocore.is_nondominated(F[ok], keep_weakly=True)
    return mask


def hypervolume(F, ref) -> float:
    """Hypervolume dominated by the rows of ``F`` up to the reference point ``ref``.

    Examples
    --------
    >>> hypervolume([[1, 2], [2, 1]], ref=[3, 3])
    3.0

    ``F`` is a table, one row per point (one point is ``[[1, 2]]``, not ``[1, 2]``):

    >>> hypervolume([1, 2], [3, 3])
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'F' must be a 2-d array, one row of 2 objective values per point (e.g. [[1, 2]]); got shape (2,).
    """
    ref = _numbers("ref", ref)
    if ref.ndim != 1 or ref.size == 0:
        raise InputError(f"'ref' must be a 1-d array of objective values; got shape {ref.shape}.")
    F = _numbers("F", F)
    m = ref.size
    if F.size == 0:
        return 0.0
    if F.ndim != 2 or F.shape[1] != m:
        raise InputError(f"'F' must be a 2-d array, one row of {m} objective values per point "
                         f"(e.g. [{list(range(1, m + 1))}]); got shape {F.shape}.")
    if np.isnan(F).any() or np.isnan(ref).any():
        raise InputError(f"'{'F' if np.isnan(F).any() else 'ref'}' must not hold NaN.")
    return float(moocore.hypervolume(F, ref=ref))


def _numbers(name: str, values) -> np.ndarray:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be an array of numbers; got {values!r}.") from None
