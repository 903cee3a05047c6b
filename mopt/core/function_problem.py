"""FunctionProblem: a problem around a user's own simulator and a table of designs.

``FunctionProblem(simulate, designs, objectives)`` lists its designs (dicts of named parameters, or
a DataFrame) and calls ``simulate(params, rng)`` once per replication; it is an
:class:`~mopt.core.problem.IndexedProblem` (the design vector is the row index).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, SimulationError
from mopt.core.problem import RESERVED_COLUMNS, IndexedProblem, _objective_names, _params, _show
from mopt.core.random import replication_rng

__all__ = ["FunctionProblem"]


class FunctionProblem(IndexedProblem):
    """A problem around a user's own simulator.

    Parameters
    ----------
    simulate : callable
        ``simulate(params: dict, rng: numpy.random.Generator) -> tuple of objective values``.
        Must be a module-level function to run in worker processes.
    designs : list of dict or pandas.DataFrame
        The design space, one design (named parameters) per entry.
    objectives : sequence of str
        Names of the values ``simulate`` returns, all minimised.
    common_random_numbers : bool
        If True (default) replication ``r`` gets the same Generator for every design.

    Examples
    --------
    >>> def sim(p, rng):
    ...     return (p["a"] + rng.normal(), 1.0 / p["a"])
    >>> prob = FunctionProblem(sim, [{"a": 1}, {"a": 2}], ["time", "cost"])
    >>> prob.n_designs, prob.decode(prob.design(1))
    (2, {'a': 2})
    >>> prob.replicate([0, 1], [0, 1, 2], seed=1).shape
    (2, 3, 2)
    """

    def __init__(
        self,
        simulate: Callable,
        designs,
        objectives: Sequence[str],
        *,
        n_reps: int = 10,
        seed: int = 0,
        common_random_numbers: bool = True,
    ):
        if not callable(simulate):
            raise TypeError(f"'simulate' must be callable; got {type(simulate).__name__}.")
        crn = common_random_numbers
        if not isinstance(crn, (bool, np.bool_)):
            raise TypeError(f"'common_random_numbers' must be True or False; got {_show(crn)}.")
        table = _design_table(designs)
        objectives = _objective_names(objectives, tuple(table.columns))
        _check_parameter_names(table.columns, objectives)
        super().__init__(objectives=objectives, n_designs=len(table), n_reps=n_reps, seed=seed)
        self.function = simulate
        self.table = table
        self.parameter_names = tuple(str(c) for c in table.columns)
        self.common_random_numbers = bool(common_random_numbers)

    def decode(self, x) -> dict:
        row = self.table.iloc[self.index(x)]
        return {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = self._check_indices(indices)
        df = self.table.iloc[indices].reset_index(drop=True)
        df.insert(0, "design", indices)
        return df

    def _replicate(self, indices, reps, entropy):
        out = np.empty((len(indices), len(reps), self.n_obj))
        for a, i in enumerate(indices):
            params = self.decode([i])
            for b, r in enumerate(reps):
                rng = replication_rng(entropy, r, None if self.common_random_numbers else i)
                try:
                    raw = self.function(params, rng)
                except Exception as exc:  # the user's simulator: name the design, keep the cause
                    raise SimulationError(
                        f"'simulate' raised {type(exc).__name__} on design {int(i)} ({_params(self, i)}), "
                        f"replication {int(r)}: {exc}"
                    ) from exc
                out[a, b] = self._values(raw, i)
        return out

    def _values(self, raw, i) -> np.ndarray:
        """What ``simulate`` returned for design ``i`` as ``n_obj`` floats (InputError naming the
        design otherwise: a str, a dict, a wrong count)."""
        expected = f"'simulate' must return {self.n_obj} values ({', '.join(self.objectives)})"
        if isinstance(raw, (str, bytes, dict)):
            raise InputError(f"{expected}; got {_show(raw)} ({type(raw).__name__}) for design {int(i)} "
                             f"({_params(self, i)}).")
        try:
            values = np.asarray(raw, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InputError(f"{expected}; got {_show(raw)} for design {int(i)} ({_params(self, i)}).") from None
        if values.shape != (self.n_obj,):
            raise InputError(f"{expected}; got {values.size} for design {int(i)} ({_params(self, i)}).")
        return values

    def _identity(self) -> dict:
        return {
            **super()._identity(),
            "function": getattr(self.function, "__qualname__", repr(self.function)),
            "designs": self.table.to_json(),
            "crn": self.common_random_numbers,
        }


def _design_table(designs) -> pd.DataFrame:
    """``designs`` (a DataFrame, or a sequence of dicts of parameter values) as a DataFrame."""
    expected = "'designs' must be a list of dicts (parameter name -> value) or a DataFrame"
    if isinstance(designs, pd.DataFrame):
        table = designs.reset_index(drop=True)
    else:
        if isinstance(designs, (str, bytes, Mapping)):
            raise TypeError(f"{expected}; got a {type(designs).__name__}.")
        try:
            entries = list(designs)
        except TypeError:
            what = type(designs).__name__
            raise TypeError(f"{expected}; got {_show(designs)} ({what}).") from None
        for k, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                what = type(entry).__name__
                raise TypeError(f"{expected}; got {_show(entry)} ({what}) at position {k}.")
        table = pd.DataFrame(entries)
    if len(table) == 0:
        raise InputError("'designs' must contain at least one design; got 0.")
    return table


def _check_parameter_names(columns, objectives: tuple[str, ...]) -> None:
    """Parameter names: unique non-empty strings that are not columns of the ``evaluations`` table
    (``design``, ``n_reps``, ``utility``, the objectives' ``*_se``)."""
    names = list(columns)
    se = {f"{o}_se" for o in objectives}
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"'designs' parameter names must be non-empty strings; got {name!r}.")
        if name in RESERVED_COLUMNS or name in se:
            taken = [*RESERVED_COLUMNS, *sorted(se)]
            raise InputError(f"'designs' parameter names must not be the columns {taken} of the "
                             f"evaluations table; got {name!r}.")
    dup = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if dup is not None:
        raise InputError(f"'designs' parameter names must be unique; got {dup!r} twice.")
