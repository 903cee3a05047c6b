"""Utilities written as text, e.g. on the command line: ``"within_budget(cost, 1.0, then=makespan)"``.

A spec is one call of a function of :mod:`mopt.utility` whose arguments are objective names (bare
or quoted) and numbers.  It is parsed with :mod:`ast` and never evaluated: nothing but those
functions, names and numeric literals is accepted.
"""

from __future__ import annotations

import ast
import numbers

from mopt.core import utility
from mopt.core.errors import InputError

__all__ = ["parse_utility", "UTILITY_FUNCTIONS"]

#: the functions a spec may call
UTILITY_FUNCTIONS = {
    "minimize": utility.minimize,
    "product": utility.product,
    "weighted": utility.weighted,
    "within_budget": utility.within_budget,
    "by_deadline": utility.by_deadline,
    "U": utility.U,
    "quantile": utility.quantile,
    "cvar": utility.cvar,
}
_MAX_LENGTH = 500


def _argument(spec: str, node: ast.AST):
    """An objective name (bare name or string literal) or a number (optionally negated)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, numbers.Real) and not isinstance(
        node.value, bool
    ):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, numbers.Real)
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    raise InputError(
        f"utility {spec!r}: arguments must be objective names or numbers; got {ast.unparse(node)!r}."
    )


def parse_utility(spec: str) -> utility.Utility:
    """Build the :class:`~mopt.utility.Utility` that ``spec`` describes, safely.

    Parameters
    ----------
    spec : str
        A call such as ``minimize(makespan)``, ``product(makespan, cost)``,
        ``weighted(makespan=1, cost=3600)``, ``within_budget(cost, 1.0, then=makespan)``,
        ``by_deadline(makespan, 20000, then=cost)``, ``U(alpha=1, beta=1)``; under risk
        (estimated from the replications, :mod:`mopt.core.risk`)
        ``within_budget(cost, 1.0, then=makespan, probability=0.9)`` (optionally
        ``confidence=0.95``), ``by_deadline(makespan, 8000, then=cost, probability=0.9)``,
        ``quantile(makespan, 0.95)`` or ``cvar(makespan, 0.9)``.

    Raises
    ------
    InputError
        Not a single call of one of :data:`UTILITY_FUNCTIONS` with name/number arguments, or
        arguments the function does not take.

    Examples
    --------
    >>> parse_utility("within_budget(cost, 1.0, then=makespan)").name
    'within_budget(cost <= 1, then=makespan)'
    >>> parse_utility("__import__('os')")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: utility "__import__('os')": '__import__' is not a utility; use one of minimize, product, weighted, within_budget, by_deadline, U, quantile, cvar.
    """
    if not isinstance(spec, str):
        raise TypeError(f"'utility' spec must be a string; got {type(spec).__name__}.")
    names = ", ".join(UTILITY_FUNCTIONS)
    if len(spec) > _MAX_LENGTH:
        raise InputError(f"utility spec is too long ({len(spec)} > {_MAX_LENGTH} characters).")
    try:
        tree = ast.parse(spec.strip(), mode="eval")
    except SyntaxError as exc:
        raise InputError(
            f"utility {spec!r} is not a call like 'product(makespan, cost)' ({exc.msg})."
        ) from None
    call = tree.body
    if not isinstance(call, ast.Call):
        raise InputError(f"utility {spec!r} must be a call of one of {names}, e.g. 'minimize(makespan)'.")
    if not isinstance(call.func, ast.Name):
        raise InputError(f"utility {spec!r}: {ast.unparse(call.func)!r} is not a utility; use one of {names}.")
    fn = UTILITY_FUNCTIONS.get(call.func.id)
    if fn is None:
        raise InputError(f"utility {spec!r}: {call.func.id!r} is not a utility; use one of {names}.")
    args = [_argument(spec, a) for a in call.args]
    kwargs = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise InputError(f"utility {spec!r}: '**' arguments are not allowed.")
        if kw.arg in kwargs:
            raise InputError(f"utility {spec!r}: keyword argument {kw.arg!r} is repeated.")
        kwargs[kw.arg] = _argument(spec, kw.value)
    try:
        return fn(*args, **kwargs)
    except TypeError as exc:
        raise InputError(f"utility {spec!r}: {exc}") from None
    except InputError as exc:
        raise InputError(f"utility {spec!r}: {exc}") from None
