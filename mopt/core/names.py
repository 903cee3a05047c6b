"""Names a user gives (methods, policies, workloads, options, keys): matched case-insensitively to
their canonical spelling, with a "did you mean" for a near miss."""

from __future__ import annotations

import difflib

from mopt.core.errors import InputError

__all__ = ["suggest", "canonical"]


def suggest(key, allowed, form: str = "'{}'") -> str:
    """``"; did you mean 'x'?"`` for the closest allowed name (compared case-insensitively), or ``""``.

    Examples
    --------
    >>> suggest("sed", ["seed", "method"])
    "; did you mean 'seed'?"
    >>> suggest("F", ["FF", "RR", "SJF"])
    "; did you mean 'FF'?"
    """
    if not isinstance(key, str):
        return ""
    names = [a for a in allowed if isinstance(a, str)]
    lower = {}
    for a in names:
        lower.setdefault(a.lower(), a)
    close = [lower[key.lower()]] if key.lower() in lower else \
        [lower[c] for c in difflib.get_close_matches(key.lower(), list(lower), n=1, cutoff=0.6)]
    return f"; did you mean {form.format(close[0])}?" if close else ""


def canonical(name, allowed, what: str, *, among: str = "one of") -> str:
    """The spelling in ``allowed`` of the name ``name``, matched case-insensitively (an exact
    match first); else one :class:`InputError` ``"<what> must be <among> [...]; got 'x'; did you
    mean 'y'?"``. The one place names given by a user (methods, policies, workloads, ...) are read.

    Examples
    --------
    >>> canonical("ff", ["FF", "RR"], "'--policy'")
    'FF'
    >>> canonical("ocbaa", ["ocba", "exhaustive"], "'method'")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'method' must be one of ['ocba', 'exhaustive']; got 'ocbaa'; did you mean 'ocba'?
    """
    names = list(allowed)
    if isinstance(name, str):
        if name in names:
            return name
        folded = [a for a in names if isinstance(a, str) and a.lower() == name.lower()]
        if len(folded) == 1:
            return folded[0]
    kind = "" if isinstance(name, str) else f" ({type(name).__name__})"
    raise InputError(f"{what} must be {among} {names}; got {name!r}{kind}{suggest(name, names) or '.'}")
