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
    """
    F = np.asarray(F, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if len(F) == 0:
        return 0.0
    return float(moocore.hypervolume(F, ref=ref))
