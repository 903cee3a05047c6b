"""The library's own errors and the one message shape used for bad input.

Every message names the parameter, says what was expected and shows what came:
``'Mr' must be in [0, mr_max=0.1]; got 0.5.``
"""

from __future__ import annotations

import math
import numbers

__all__ = ["MoptError", "InputError", "SimulationError", "check_number", "check_int"]


class MoptError(Exception):
    """Base class of errors raised by mopt itself (not by bad input)."""


class InputError(MoptError, ValueError):
    """Bad user input: a ValueError that names the parameter, file, line or key."""


class SimulationError(MoptError):
    """A problem's own simulator raised: the message names the design and the replication, the
    original exception is the ``__cause__``."""


def _fmt(value) -> str:
    return repr(value) if isinstance(value, str) else f"{value}"


def check_number(
    name: str,
    value,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
    low_name: str | None = None,
    high_name: str | None = None,
) -> float:
    """Validate a real number and return it as float.

    Raises
    ------
    TypeError
        ``value`` is not a real number.
    ValueError
        ``value`` is NaN, infinite (unless ``allow_inf``) or outside the range.

    Examples
    --------
    >>> check_number("Mr", 0.05, low=0, high=0.1, high_name="mr_max=0.1")
    0.05
    >>> check_number("Mr", 0.5, low=0, high=0.1, high_name="mr_max=0.1")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'Mr' must be in [0, mr_max=0.1]; got 0.5.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a number; got {_fmt(value)} ({type(value).__name__}).")
    v = float(value)
    lo = low_name or (f"{low:g}" if math.isfinite(low) else "-inf")
    hi = high_name or (f"{high:g}" if math.isfinite(high) else "inf")
    rng = f"{'(' if low_open else '['}{lo}, {hi}{')' if high_open or not math.isfinite(high) else ']'}"
    if math.isnan(v):
        raise InputError(f"'{name}' must be in {rng}; got nan.")
    if math.isinf(v) and not allow_inf:
        raise InputError(f"'{name}' must be a finite number in {rng}; got {v}.")
    below = v < low or (low_open and v == low)
    above = v > high or (high_open and v == high)
    if below or above:
        raise InputError(f"'{name}' must be in {rng}; got {_fmt(value)}.")
    return v


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Validate an integer (a float with an integral value is accepted) and return it.

    Examples
    --------
    >>> check_int("n_reps", 3, low=1)
    3
    >>> check_int("n_reps", 0, low=1)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'n_reps' must be an integer >= 1; got 0.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be an integer; got {_fmt(value)} ({type(value).__name__}).")
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        f = float(value)
        if not math.isfinite(f) or f != int(f):
            raise InputError(f"'{name}' must be an integer; got {_fmt(value)}.")
        v = int(f)
    if low is not None and high is not None and not low <= v <= high:
        raise InputError(f"'{name}' must be an integer in [{low}, {high}]; got {value}.")
    if low is not None and v < low:
        raise InputError(f"'{name}' must be an integer >= {low}; got {value}.")
    if high is not None and v > high:
        raise InputError(f"'{name}' must be an integer <= {high}; got {value}.")
    return v


def _holds_text(values) -> bool:
    """Whether ``values`` is or holds (at any depth of lists and tuples) a str or bytes."""
    if isinstance(values, (str, bytes)):
        return True
    if isinstance(values, (list, tuple)):
        return any(_holds_text(v) for v in values)
    dtype = getattr(values, "dtype", None)
    return dtype is not None and dtype.kind in "USO" and any(isinstance(v, (str, bytes)) for v in
                                                          getattr(values, "flat", ()))


def check_array(name: str, values, *, ndim: int, shape: tuple | None = None, allow_inf: bool = False,
                nonnegative: bool = False):
    """``values`` as a non-empty float array of ``ndim`` dimensions (and ``shape`` if given), with no
    NaN, no infinity unless ``allow_inf`` and nothing negative if ``nonnegative``.

    Examples
    --------
    >>> check_array("variances", [1, -2], ndim=1, nonnegative=True)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'variances' must hold non-negative finite numbers; got -2.0 at position 1.
    """
    import numpy as np

    kind = "sequence" if ndim == 1 else "table"
    if _holds_text(values):  # numpy would read "0" as 0.0: a quoted number is a mistake worth naming
        raise InputError(f"'{name}' must be a {ndim}-d {kind} of numbers, not text; got {values!r}.")
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be a {ndim}-d {kind} of numbers; got {values!r}.") from None
    if arr.ndim != ndim or arr.size == 0:
        raise InputError(f"'{name}' must be a non-empty {ndim}-d {kind} of numbers; got shape {arr.shape}.")
    if shape is not None and arr.shape != tuple(shape):
        raise InputError(f"'{name}' must have shape {tuple(shape)}; got {arr.shape}.")
    bad = np.isnan(arr) if allow_inf else ~np.isfinite(arr)
    if nonnegative:
        bad |= arr < 0
    if bad.any():
        k = np.unravel_index(int(np.flatnonzero(bad)[0]), arr.shape)
        at = k[0] if ndim == 1 else tuple(int(j) for j in k)
        words = " ".join(w for w in ("non-negative" if nonnegative else "", "" if allow_inf else "finite") if w)
        raise InputError(f"'{name}' must hold {words or 'real'} numbers; got {float(arr[k])!r} at position {at}.")
    return arr
