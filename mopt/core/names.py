"""Names a user gives (methods, policies, workloads, options, keys): matched case-insensitively to
their canonical spelling, with a "did you mean" for a near miss."""

from __future__ import annotations

import difflib

from mopt.core.errors import InputError

__all__ = ["suggest", "canonical", "fold_keys"]


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


def fold_keys(options: dict, allowed) -> dict:
    """``options`` with each key not in ``allowed`` renamed to the one allowed key it matches
    case-insensitively (``N0`` -> ``n0``), unless that key is given too; other keys unchanged (the
    caller refuses them, with :func:`suggest`).

    Examples
    --------
    >>> fold_keys({"N0": 3, "budget": 9}, ["n0", "delta"])
    {'n0': 3, 'budget': 9}
    """
    names = [a for a in allowed if isinstance(a, str)]
    out = {}
    for key, value in options.items():
        if isinstance(key, str) and key not in names:
            folded = [a for a in names if a.lower() == key.lower()]
            if len(folded) == 1 and folded[0] not in options:
                key = folded[0]
        out[key] = value
    return out
