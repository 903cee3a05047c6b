"""Peers: what a user would otherwise run, as methods of :func:`mopt.compare` (not of ``solve``).

A peer is a search from another library that sees a noisy problem as a deterministic one whose
objectives are the mean of ``k`` replications; its name is ``<peer>:<k>``:

* ``random:k`` — designs drawn uniformly without replacement (a seeded numpy Generator), k
  replications each;
* ``pymoo-nsga2:k`` — ``pymoo.algorithms.moo.nsga2.NSGA2()`` with pymoo's defaults, run by
  ``pymoo.optimize.minimize`` on the problem's pymoo interface (design vectors in ``[xl, xu]``,
  rounded; the problem's constraint when not every vector is a design), termination
  ``("n_eval", budget // k)``;
* ``optuna-tpe:k`` and ``optuna-nsga2:k`` — ``optuna.create_study`` (in memory, every objective
  minimised) with ``TPESampler`` or ``NSGAIISampler`` and their defaults, the design vector as one
  integer parameter per variable, ``study.optimize(objective, n_trials=budget // k)``.

The peers' own code runs unchanged; what is ours is only the objective they call:

* every evaluation of a design is the mean of k *new* replications of it: the j-th evaluation of
  design ``i`` gets replications ``j·k .. (j+1)·k - 1`` of ``problem.replicate`` with the run's
  seed, the replications a mopt method would draw for that design (common random numbers across
  methods).  A design the peer evaluates again is simulated again and costs k more (ours: that is
  what the peers do with a noisy objective; nothing is cached);
* the budget: an evaluation that would take the replications spent beyond the budget is not run
  and the search stops there (pymoo evaluates a generation at once: the part of it that fits is
  simulated, and the answer is the last whole generation's);
* a vector that is not a design: for pymoo it is infeasible (F = inf, the problem's graded
  constraint), costing nothing; Optuna's samplers take no constraint by default, so it is
  evaluated as its nearest design (:meth:`~mopt.StochasticProblem.repair`).

The :class:`~mopt.Result` holds every design the peer evaluated, its mean and standard error over
all the replications the peer drew for it; ``info["selected"]`` is the peer's own answer (pymoo's
``opt``, Optuna's ``best_trials``; random search answers with everything it evaluated), which
:func:`~mopt.scoring.score` scores.  ``info["versions"]`` records the peer library's version.
Peers run in this process (no executor, no journal).  Optuna is the optional extra ``peers``:
``pip install "mopt[peers]"``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import numpy as np
from pymoo.core.problem import Problem

from mopt.core import interop
from mopt.core.errors import InputError, check_int
from mopt.core.random import resolve_seed
from mopt.core.result import Result
from mopt.solvers.finish import evaluations_of

__all__ = ["PEERS", "DEFAULT_KS", "MAX_K", "is_peer", "parse_peer", "peer_names", "run_peer"]

#: peer name -> the library it runs
PEERS = {"random": "numpy", "pymoo-nsga2": "pymoo", "optuna-tpe": "optuna", "optuna-nsga2": "optuna"}
#: replications per evaluation studied by default (``peer_names()``)
DEFAULT_KS = (1, 5, 10)
#: most replications per evaluation
MAX_K = 1000


def is_peer(name) -> bool:
    """Whether ``name`` names a peer (``"random:5"``, or a peer without its ``:k``)."""
    return isinstance(name, str) and name.split(":", 1)[0] in PEERS


def parse_peer(name: str, *, option: str = "methods") -> tuple[str, int]:
    """``(peer, k)`` of a peer name such as ``"pymoo-nsga2:5"``; InputError naming ``option`` else.

    Examples
    --------
    >>> parse_peer("pymoo-nsga2:5")
    ('pymoo-nsga2', 5)
    >>> parse_peer("random")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'methods' must give a peer's replications per evaluation as <peer>:<k>, k an integer in [1, 1000] (e.g. random:5); got 'random'.
    """
    peer, _, k = name.partition(":")
    expected = (f"'{option}' must give a peer's replications per evaluation as <peer>:<k>, k an integer in "
                f"[1, {MAX_K}] (e.g. {peer}:5)")
    if peer not in PEERS:
        raise InputError(f"'{option}' must name peers from {sorted(PEERS)} (as <peer>:<k>); got {name!r}.")
    if not k.strip().isdigit() or not 1 <= int(k) <= MAX_K:
        raise InputError(f"{expected}; got {name!r}.")
    if PEERS[peer] == "optuna":
        try:
            import optuna  # noqa: F401
        except ImportError:
            raise InputError(f"peer {name!r} needs Optuna, which is not installed: pip install "
                             '"mopt[peers]".') from None
    return peer, int(k)


def peer_names(ks=DEFAULT_KS) -> list[str]:
    """Every peer with each ``k`` of ``ks``.

    Examples
    --------
    >>> peer_names([5])
    ['random:5', 'pymoo-nsga2:5', 'optuna-tpe:5', 'optuna-nsga2:5']
    """
    return [f"{peer}:{int(k)}" for peer in PEERS for k in ks]


def versions(name: str) -> dict[str, str]:
    """The versions of the libraries that peer ``name`` runs (and numpy's, which draws its designs)."""
    out = {}
    for lib in dict.fromkeys(["numpy", PEERS[parse_peer(name)[0]]]):
        try:
            out[lib] = version(lib)
        except PackageNotFoundError:
            out[lib] = "not installed"
    return out


class _Exhausted(Exception):
    """The next evaluation would take the replications spent beyond the budget."""


class _Ledger:
    """The peers' objective: each evaluation of a design, k new replications of it, within a budget."""

    def __init__(self, problem, k: int, budget: int, entropy: int):
        self.problem, self.k, self.budget, self.entropy = problem, k, budget, entropy
        self.samples: dict[int, list[np.ndarray]] = {}
        self.spent = 0

    def evaluate(self, indices) -> np.ndarray:
        """The k-replication means of the designs ``indices`` (a design may repeat), shape (n, n_obj).

        Raises _Exhausted after simulating the evaluations that fit, when not all of them do.
        """
        indices = [int(i) for i in np.ravel(indices)]
        fit = min(len(indices), (self.budget - self.spent) // self.k)
        start, have = [], {}
        for i in indices[:fit]:  # the j-th evaluation of a design: its replications j·k .. (j+1)·k - 1
            n = have.get(i, sum(len(s) for s in self.samples.get(i, [])))
            start.append(n)
            have[i] = n + self.k
        means = np.empty((fit, self.problem.n_obj))
        for s in sorted(set(start)):  # one call per starting replication (a design at most once in each)
            rows = [r for r in range(fit) if start[r] == s]
            values = self.problem.replicate([indices[r] for r in rows], np.arange(s, s + self.k), self.entropy)
            for r, v in zip(rows, values, strict=True):
                self.samples.setdefault(indices[r], []).append(v)
                means[r] = v.mean(axis=0)
        self.spent += fit * self.k
        if fit < len(indices):
            raise _Exhausted
        return means


def _peer_seed(entropy: int) -> int:
    """The 32-bit seed handed to the peer's own generator (numpy, pymoo, Optuna), from the run's."""
    return int(np.random.SeedSequence(entropy, spawn_key=(0x9EE5,)).generate_state(1)[0])


def _random(problem, ledger: _Ledger, seed: int):
    n = min(problem.n_designs, ledger.budget // ledger.k)
    ledger.evaluate(problem.sample_designs(np.random.default_rng(seed), n))
    return None


def _pymoo_nsga2(problem, ledger: _Ledger, seed: int):
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.optimize import minimize

    algorithm = NSGA2()
    try:
        minimize(_Averaged(problem, ledger), algorithm, ("n_eval", ledger.budget // ledger.k), seed=seed,
                 copy_algorithm=False)
    except _Exhausted:
        pass
    opt = algorithm.opt
    if opt is None or len(opt) == 0:  # not one generation evaluated whole: answer with everything
        return None
    F = opt.get("F")
    X = opt.get("X")[np.isfinite(F).all(axis=1)]
    return sorted({int(i) for i in problem.repair(X)}) if len(X) else None


def _optuna(sampler_name: str):
    def search(problem, ledger: _Ledger, seed: int):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler = getattr(optuna.samplers, sampler_name)(seed=seed)
        study = optuna.create_study(directions=["minimize"] * problem.n_obj, sampler=sampler)
        xl = np.asarray(problem.xl, dtype=np.int64).ravel()
        xu = np.asarray(problem.xu, dtype=np.int64).ravel()

        def objective(trial):
            x = [trial.suggest_int(f"x{j}", int(xl[j]), int(xu[j])) for j in range(problem.n_var)]
            try:
                i = problem.index(x)
            except (ValueError, InputError):
                i = int(problem.repair([x])[0])
            trial.set_user_attr("design", int(i))
            return tuple(float(v) for v in ledger.evaluate([i])[0])

        study.optimize(objective, n_trials=ledger.budget // ledger.k)
        return sorted({int(t.user_attrs["design"]) for t in study.best_trials}) or None

    return search


_SEARCH = {"random": _random, "pymoo-nsga2": _pymoo_nsga2, "optuna-tpe": _optuna("TPESampler"),
           "optuna-nsga2": _optuna("NSGAIISampler")}


def run_peer(problem, name: str, *, budget: int, seed=None, uncertainty=True) -> Result:
    """Run peer ``name`` (``"<peer>:<k>"``) on ``problem`` with ``budget`` replications at most.

    Parameters
    ----------
    problem : StochasticProblem
    name : str
        A peer and its replications per evaluation, e.g. ``"pymoo-nsga2:5"`` (see :data:`PEERS`).
    budget : int
        Replications to spend at most (at least k).
    seed : int, numpy.random.Generator or None
        Same seed ⇒ same result.  The replications are those of ``problem.replicate`` with this
        seed; the peer's own generator gets a seed derived from it.
    uncertainty : bool
        As for :func:`mopt.solve` (False: no ``p_nondominated`` and intervals; compare's runs).

    Returns
    -------
    Result
        ``method`` is ``name``; ``evaluations`` every design evaluated, its mean over all the
        replications drawn for it; ``info`` the budget, ``k``, ``selected`` (the peer's answer, or
        absent when it answers with everything it evaluated) and ``versions``.

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6]], sd=0.5)
    >>> res = run_peer(prob, "random:2", budget=8, seed=1)
    >>> res.method, res.n_evals, sorted(res.evaluations["design"].tolist()), res.evaluations["n_reps"].tolist()
    ('random:2', 8, [0, 1, 2, 3], [2, 2, 2, 2])
    """
    peer, k = parse_peer(name, option="name")
    budget = check_int("budget", budget, low=k, high=2**62)
    entropy = resolve_seed(seed)
    ledger = _Ledger(problem, k, budget, entropy)
    try:
        selected = _SEARCH[peer](problem, ledger, _peer_seed(entropy))
    except _Exhausted:  # the Optuna objective raised it: budget // k trials never overshoot, but be safe
        selected = None
    order = sorted(ledger.samples)
    evaluations, how_sure = evaluations_of(problem, order, [np.concatenate(ledger.samples[i]) for i in order],
                                           entropy, uncertainty=uncertainty)
    info = {"budget": int(budget), "k": k, "versions": versions(name)}
    if how_sure is not None:
        info["uncertainty"] = how_sure
    if selected is not None:
        info["selected"] = selected
    return Result(method=name, seed=entropy, n_evals=int(ledger.spent), objectives=tuple(problem.objectives),
                  evaluations=evaluations, info=info)


class _Averaged(Problem):
    """The problem's pymoo interface with each evaluation the mean of k new replications."""

    def __init__(self, problem, ledger: _Ledger):
        super().__init__(n_var=problem.n_var, n_obj=problem.n_obj, n_ieq_constr=problem.n_ieq_constr,
                         xl=problem.xl, xu=problem.xu, vtype=int)
        self.mopt_problem, self.ledger = problem, ledger

    def _evaluate(self, x, out, *args, **kwargs):
        # as StochasticProblem._evaluate: rounded; not a design -> infeasible (or its nearest design)
        prob = self.mopt_problem
        raw = np.atleast_2d(np.asarray(x, dtype=float))
        indices = np.full(len(raw), -1, dtype=np.int64)
        for r, row in enumerate(np.rint(raw).astype(np.int64)):
            try:
                indices[r] = prob.index(row)
            except (ValueError, TypeError):
                pass
        valid = indices >= 0
        if not self.n_ieq_constr and not valid.all():
            indices[~valid] = prob.repair(raw[~valid])
            valid[:] = True
        F = np.full((len(raw), self.n_obj), np.inf)
        if valid.any():
            F[valid] = self.ledger.evaluate(indices[valid])
        out["F"] = F
        if self.n_ieq_constr:
            out["G"] = interop.violation(prob, raw, valid)[:, None]
