"""``SubsetProblem``: some of a problem's designs, as a problem of their own.

The subset keeps the problem's design vectors, parameters, objectives and replications: design
``i`` of the subset is design ``designs[i]`` of the problem, and its replication ``r`` with seed
``s`` is the problem's replication ``r`` of ``designs[i]`` with seed ``s`` (the same numbers).
pymoo sees the problem's design vector in the smallest box holding the subset's vectors; a vector
in the box that is not one of them is not a design (the graded constraint, or the nearest design,
as for any mopt problem).  Used by :func:`mopt.suite` to make a benchmark instance small enough
to solve exhaustively.
"""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError
from mopt.core.problem import StochasticProblem

__all__ = ["SubsetProblem"]


class SubsetProblem(StochasticProblem):
    """The designs ``designs`` of ``problem``, renumbered 0 .. len(designs) - 1.

    Parameters
    ----------
    problem : StochasticProblem
    designs : sequence of int
        Distinct design indices of ``problem`` (the subset's order).
    n_reps, seed : int or None
        pymoo's view (None: the problem's).

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.FunctionProblem(lambda p, rng: (p["a"] + rng.normal(),), [{"a": a} for a in range(6)], ["t"])
    >>> sub = SubsetProblem(prob, [4, 1])
    >>> sub.n_designs, sub.decode(sub.design(0)), sub.index([1])
    (2, {'a': 4}, 1)
    >>> bool((sub.replicate([0], [0, 1], seed=3) == prob.replicate([4], [0, 1], seed=3)).all())
    True
    """

    def __init__(self, problem: StochasticProblem, designs, *, n_reps: int | None = None, seed: int | None = None):
        if not isinstance(problem, StochasticProblem):
            raise TypeError(f"'problem' must be a mopt StochasticProblem; got {type(problem).__name__}.")
        try:
            chosen = np.asarray(designs, dtype=np.int64).ravel()
        except (TypeError, ValueError):
            raise InputError(f"'designs' must be a list of design indices; got {designs!r}.") from None
        if chosen.size == 0:
            raise InputError("'designs' must hold at least one design index; got none.")
        chosen = problem._check_indices(chosen)
        if len(np.unique(chosen)) != len(chosen):
            raise InputError("'designs' must not repeat a design index.")
        self.problem, self.designs = problem, chosen
        self.parameter_names = tuple(problem.parameter_names)
        vectors = np.array([problem.design(int(i)) for i in chosen], dtype=np.int64).reshape(len(chosen), -1)
        self._position = {tuple(v.tolist()): k for k, v in enumerate(vectors)}
        super().__init__(objectives=problem.objectives, n_var=problem.n_var, xl=vectors.min(axis=0),
                         xu=vectors.max(axis=0), n_reps=problem.n_reps if n_reps is None else n_reps,
                         seed=problem.seed if seed is None else seed)

    @property
    def n_designs(self) -> int:
        return len(self.designs)

    def design(self, i: int) -> np.ndarray:
        return self.problem.design(int(self.designs[self._check_index(i)]))

    def index(self, x) -> int:
        key = self._design_vector(x)
        if key not in self._position:
            raise InputError(f"'x'={list(key)} is not a design of this subset of {type(self.problem).__name__}.")
        return self._position[key]

    def decode(self, x) -> dict:
        return self.problem.decode(x)

    def designs_frame(self, indices):
        indices = self._check_indices(indices)
        frame = self.problem.designs_frame(self.designs[indices])
        frame["design"] = indices
        return frame

    def _replicate(self, indices, reps, entropy):
        return self.problem._replicate(self.designs[indices], reps, entropy)

    def _identity(self) -> dict:
        return {"class": type(self).__name__, "problem": self.problem._identity(),
                "designs": self.designs.tolist()}
