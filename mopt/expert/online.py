"""Online use: start the tail phase from an observed throughput-phase log (ExPERT Fig. 4).

A user at T_tail holds a log of the throughput phase, one row per instance: ``task``,
``send_time`` and ``result_time`` (NaN or inf: no result yet).  :func:`observe` turns it into an
:class:`ObservedTail` — the remaining tasks (no result by ``t_tail``), the running instance of each
(its send time; it has been out ``t_tail - send_time``), the cost already paid, and the online
turnaround model (:meth:`ObservedTail.turnaround_model`) — and :func:`estimate_online` (or
``NTDMrProblem(..., observed=...)``) simulates the tail from that state instead of a throughput phase.

A running instance's outcome is drawn per replication from F conditioned on no result during the
``a = t_tail - send_time`` seconds it has been out: a result with probability
``γ(s)(1 - F_s(a)) / (1 - γ(s) F_s(a))``, at a turnaround drawn from F_s restricted to ``(a, ∞)``;
a result at or after the log's deadline is a failure (see
:func:`mopt.expert._engine.running_outcomes`).  The draws use the instance number
``RUNNING_INSTANCE`` of the counter-based generator, so all strategies of a replication share them.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import check_lines, read_bytes
from mopt.core.random import SeedLike, replication_keys, resolve_seed
from mopt.expert.environment import Environment
from mopt.expert.turnaround import TurnaroundModel

__all__ = ["ThroughputLog", "ObservedTail", "observe", "estimate_online"]

LOG_COLUMNS = ("task", "send_time", "result_time")

#: task ids are below 2**62, so they never wrap around in int64 arithmetic
TASK_ID_LIMIT = 2**62

#: text of ``result_time`` that means no result yet (besides inf), compared case-insensitively
_NO_RESULT = ("", "nan")


class MalformedCSVError(InputError, pd.errors.ParserError):
    """A throughput log that is not well-formed CSV (e.g. a row with more fields than the header).

    An :class:`InputError` that is also pandas' ``ParserError``, which :meth:`ThroughputLog.read_csv`
    raised for such files before it parsed them itself, so callers catching that keep working."""


def _where(source: str | None, row: int, lines=None) -> str:
    """Row ``row`` (0-based) of a log: a file line (``lines[row]``, or ``row + 2`` with the header on
    line 1) or a DataFrame row."""
    if not source:
        return f"row {row}"
    return f"{source} line {lines[row] if lines is not None else row + 2}"


@dataclass(frozen=True)
class ThroughputLog:
    """Instances of the throughput phase: columns ``task`` (int in [0, 2**62)), ``send_time`` (≥ 0)
    and ``result_time`` (≥ ``send_time``; no result yet: NaN or inf, in text also ``nan`` or empty).

    The frame is validated and normalized (int64 / float64 columns, ``inf`` for no result) on
    construction; errors name the column and the row (or the file and line, see :meth:`read_csv`).

    Examples
    --------
    >>> log = ThroughputLog(pd.DataFrame({"task": [0, 1], "send_time": [0.0, 0.0],
    ...                                   "result_time": [1000.0, float("nan")]}))
    >>> log.instances["result_time"].tolist()
    [1000.0, inf]
    """

    instances: pd.DataFrame
    source: str | None = field(default=None, compare=False, repr=False)
    #: file line of each row (set by :meth:`read_csv`; blank lines are skipped)
    lines: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "instances", _validated(self.instances, self.source, self.lines))

    def where(self, row: int) -> str:
        """Where row ``row`` came from: ``<file> line <n>`` or ``row <row>``."""
        return _where(self.source, row, self.lines)

    @classmethod
    def read_csv(cls, path) -> ThroughputLog:
        """Read a log from a UTF-8 CSV file with a header ``task,send_time,result_time`` (an empty,
        ``nan`` or ``inf`` ``result_time`` means no result; blank lines are skipped).  Errors name
        the file and line."""
        try:
            name = os.fspath(path)
        except TypeError:
            raise TypeError(f"'path' must be a file path; got {type(path).__name__}.") from None
        if not os.path.lexists(name):
            raise InputError(f"throughput log {name!r} does not exist.")
        if os.path.isdir(name):
            raise InputError(f"throughput log {name!r} is a directory; expected a CSV file.")
        raw = read_bytes(name, "throughput log")  # a regular file, bounded in size and line length
        check_lines(raw, "throughput log", name)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(f"throughput log {name!r} is not UTF-8 text (byte {exc.start}).") from None
        header, rows, lines = None, [], []
        reader = csv.reader(text.splitlines(keepends=True), skipinitialspace=True, strict=True)
        try:
            for fields in reader:
                if not fields or fields == [""]:  # a blank line
                    continue
                if header is None:
                    header = fields
                    if not set(header) & set(LOG_COLUMNS):  # not a log: nothing of it is quoted
                        raise InputError(f"throughput log {name!r}: not a throughput log (its first line is not a header "
                                         f"with the columns {','.join(LOG_COLUMNS)}).")
                    continue
                if len(fields) > len(header):
                    raise MalformedCSVError(f"{name} line {reader.line_num}: expected at most {len(header)} fields "
                                     f"({','.join(header)}); got {len(fields)}.")
                rows.append(fields + [""] * (len(header) - len(fields)))
                lines.append(reader.line_num)
        except csv.Error as exc:
            raise MalformedCSVError(f"{name} line {reader.line_num}: malformed CSV ({exc}).") from None
        if header is None:
            raise InputError(f"throughput log {name!r} is empty; expected a header {','.join(LOG_COLUMNS)}.")
        return cls(pd.DataFrame(rows, columns=header, dtype=object), source=name, lines=tuple(lines))


def _validated(df, source: str | None, lines=None) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"'instances' must be a pandas DataFrame; got {type(df).__name__}.")
    what = source or "the log"
    dup = df.columns[df.columns.duplicated()]
    if len(dup):
        raise InputError(f"{what}: duplicate column {str(dup[0])!r}; expected the columns {list(LOG_COLUMNS)} once each.")
    unknown = [c for c in df.columns if c not in LOG_COLUMNS]
    if unknown:
        raise InputError(f"{what}: unknown column {str(unknown[0])!r}; expected the columns {list(LOG_COLUMNS)}.")
    missing = [c for c in LOG_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{what}: missing column {missing[0]!r}; expected the columns {list(LOG_COLUMNS)}.")
    if len(df) == 0:
        raise InputError(f"{what}: has no instances; expected at least one row.")
    cols, exact = {}, None
    for c in LOG_COLUMNS:
        raw = df[c]
        if not pd.api.types.is_numeric_dtype(raw) or pd.api.types.is_bool_dtype(raw):
            raw = raw.map(lambda v: v.strip() if isinstance(v, str) else v).astype(object)
            raw = raw.map(lambda v: np.nan if isinstance(v, bool) else v)  # True is not a number
            if c == "result_time":
                raw = raw.map(lambda v: np.nan if isinstance(v, str) and v.lower() in _NO_RESULT else v)
        numeric = pd.to_numeric(raw, errors="coerce")
        values = numeric.to_numpy(dtype=float)
        bad = np.isnan(values) & ~(raw.isna().to_numpy() if c == "result_time" else np.zeros(len(df), bool))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            got = df[c].iloc[k]
            raise InputError(f"'{c}' must be a number at {_where(source, k, lines)}; "
                             f"got {got.item() if isinstance(got, np.generic) else got!r}.")
        cols[c] = values
        if c == "task" and pd.api.types.is_integer_dtype(numeric):
            exact = numeric.to_numpy()  # int64 or uint64: compared without rounding to float
    task, send, result = cols["task"], cols["send_time"], cols["result_time"]
    if exact is not None:
        bad_task = (exact < 0) | (exact >= TASK_ID_LIMIT)
    else:
        bad_task = (task < 0) | (task >= TASK_ID_LIMIT) | ~np.isfinite(task) | (task != np.floor(task))
    checks = (
        ("task", bad_task, "an integer in [0, 2**62)", task if exact is None else exact),
        ("send_time", (send < 0) | ~np.isfinite(send), "a finite number >= 0", send),
        ("result_time", result < send, "NaN/inf (no result) or >= send_time", result),
    )
    for name, bad, expected, values in checks:
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            got = values[k] if values.dtype.kind in "iu" else f"{values[k]:g}"
            raise InputError(f"'{name}' must be {expected} at {_where(source, k, lines)}; got {got}.")
    return pd.DataFrame({
        "task": (task if exact is None else exact).astype(np.int64),
        "send_time": send,
        "result_time": np.where(np.isnan(result), np.inf, result),
    })


@dataclass(frozen=True)
class ObservedTail:
    """The state of a bag of tasks at ``t_tail`` as observed in a throughput log.

    Attributes
    ----------
    t_tail : float
        Start of the tail phase (the observation time).
    deadline : float
        Deadline of the observed (running) instances, e.g. D_0 = 4·t_ur.
    n_tasks : int
        Distinct tasks in the log (every task was sent before T_tail).
    tasks, send_times : ndarray
        The remaining tasks (no result by ``t_tail``), sorted, and the send time of each one's
        running instance (out for ``t_tail - send_time`` seconds).
    result_seconds : float
        Sum of the turnarounds of the results returned by ``t_tail``: the cost paid so far is
        ``c_ur · result_seconds``.
    instances : pandas.DataFrame
        The log as known at ``t_tail`` (results after it are ``inf``), for the turnaround model.
    """

    t_tail: float
    deadline: float
    n_tasks: int
    tasks: np.ndarray
    send_times: np.ndarray
    result_seconds: float
    instances: pd.DataFrame = field(repr=False)

    @property
    def n_remaining(self) -> int:
        return int(self.tasks.size)

    @property
    def ages(self) -> np.ndarray:
        """How long each running instance has been out at ``t_tail``."""
        return self.t_tail - self.send_times

    def cost_paid(self, c_ur: float) -> float:
        """Cost (cents) of the results returned by ``t_tail``: c_ur × their turnarounds."""
        return float(c_ur) * self.result_seconds

    def turnaround_model(self, group_size: int = 50) -> TurnaroundModel:
        """The turnaround model with online γ at ``t_tail`` (three epochs, see
        :meth:`TurnaroundModel.from_instances`)."""
        inst = self.instances
        send = inst["send_time"].to_numpy()
        turnaround = inst["result_time"].to_numpy() - send
        return TurnaroundModel.from_instances(send, turnaround, self.deadline, self.t_tail, group_size=group_size)

    def environment(self, *, n_unreliable: int, t_r: float, c_ur: float, c_r: float, mr_max: float = 0.1,
                    charging_period_r: float = 1.0, t_ur: float | None = None, group_size: int = 50) -> Environment:
        """An :class:`Environment` for this bag: ``n_tasks`` from the log, the online turnaround
        model and ``t_ur`` = its mean successful turnaround unless given."""
        model = self.turnaround_model(group_size)
        return Environment(n_tasks=self.n_tasks, n_unreliable=n_unreliable,
                           t_ur=model.mean_success if t_ur is None else t_ur, t_r=t_r, c_ur=c_ur, c_r=c_r,
                           turnaround=model, mr_max=mr_max, charging_period_r=charging_period_r)

    def check_environment(self, env: Environment) -> None:
        """Raise InputError if ``env`` cannot hold this state."""
        if not isinstance(env, Environment):
            raise TypeError(f"'env' must be an Environment; got {type(env).__name__}.")
        if env.n_tasks != self.n_tasks:
            raise InputError(f"'n_tasks' of the environment must equal the {self.n_tasks} tasks of the "
                             f"observed log; got {env.n_tasks}.")
        if env.n_unreliable < self.n_remaining:
            raise InputError(f"'n_unreliable' must be >= the {self.n_remaining} instances running at "
                             f"t_tail={self.t_tail:g}; got {env.n_unreliable}.")

    def engine_state(self, env: Environment) -> dict:
        """Keyword arguments of :func:`mopt.expert._engine.simulate_observed`."""
        return {"t_tail": self.t_tail, "cost_paid": self.cost_paid(env.c_ur), "rem_task": self.tasks,
                "rem_send": self.send_times, "running_deadline": self.deadline}


def observe(log: ThroughputLog, t_tail: float, deadline: float) -> ObservedTail:
    """The tail state at ``t_tail`` of a throughput log.

    Parameters
    ----------
    log : ThroughputLog
    t_tail : float
        Observation time: every instance was sent by then; results after it are treated as not
        yet known.
    deadline : float
        Deadline of the throughput instances (D_0 = 4·t_ur in ExPERT's throughput phase).  An
        instance without a result that was sent ``deadline`` or more before ``t_tail`` has failed.

    Returns
    -------
    ObservedTail

    Raises
    ------
    InputError
        ``t_tail`` before the first send or before some send, a remaining task with two running
        instances, or a remaining task with no running instance (its last one failed and it was
        not sent again: the tail starts when the queue is empty).

    Examples
    --------
    >>> log = ThroughputLog(pd.DataFrame({"task": [0, 1, 2, 3, 4],
    ...     "send_time": [0, 0, 0, 900, 1000], "result_time": [1000, 1200, 900, None, None]}))
    >>> tail = observe(log, t_tail=1200, deadline=4000)
    >>> tail.tasks.tolist(), tail.ages.tolist(), tail.result_seconds
    ([3, 4], [300.0, 200.0], 3100.0)
    """
    if not isinstance(log, ThroughputLog):
        raise TypeError(f"'log' must be a ThroughputLog; got {type(log).__name__}.")
    t_tail = check_number("t_tail", t_tail, low=0)
    deadline = check_number("deadline", deadline, low=0, low_open=True)
    inst = log.instances
    task = inst["task"].to_numpy()
    send = inst["send_time"].to_numpy()
    first = float(send.min())
    if t_tail < first:
        raise InputError(f"'t_tail' must be >= the first send time {first:g} of the log; got {t_tail:g}.")
    late = send > t_tail
    if late.any():
        k = int(np.flatnonzero(late)[0])
        raise InputError(f"'send_time' must be <= t_tail={t_tail:g} at {log.where(k)}; "
                         f"got {send[k]:g} (the log must end at t_tail).")
    result = np.where(inst["result_time"].to_numpy() <= t_tail, inst["result_time"].to_numpy(), np.inf)
    returned = np.isfinite(result)
    done_tasks = np.unique(task[returned])
    all_tasks = np.unique(task)
    pending = ~np.isin(task, done_tasks)  # instances of remaining tasks (none returned a result)
    running = pending & (t_tail - send < deadline)
    rows = np.flatnonzero(running)
    rem_tasks, first_row, counts = np.unique(task[rows], return_index=True, return_counts=True)
    if (counts > 1).any():
        j = int(np.flatnonzero(counts > 1)[0])
        dup = rows[task[rows] == rem_tasks[j]]
        raise InputError(f"'task' {rem_tasks[j]} has {counts[j]} running instances at t_tail={t_tail:g} "
                         f"({', '.join(log.where(int(r)) for r in dup)}); expected at most one.")
    stalled = np.setdiff1d(np.unique(task[pending]), rem_tasks)
    if stalled.size:
        j = int(stalled[0])
        last = int(np.flatnonzero(task == j)[np.argmax(send[task == j])])
        raise InputError(f"'task' {j} has no result and no running instance at t_tail={t_tail:g}: its last "
                         f"instance ({log.where(last)}, sent at {send[last]:g}) passed the deadline "
                         f"{deadline:g}; the tail must start when every remaining task is running.")
    known = inst.assign(result_time=result)
    return ObservedTail(
        t_tail=t_tail,
        deadline=deadline,
        n_tasks=int(all_tasks.size),
        tasks=rem_tasks.astype(np.int64),
        send_times=send[rows[first_row]].astype(float),
        result_seconds=float(np.sum(result[returned] - send[returned])),
        instances=known,
    )


def estimate_online(observed: ObservedTail, env: Environment, strategy, n_reps: int = 10,
                    seed: SeedLike = None) -> pd.DataFrame:
    """Replications of one strategy's tail from an observed state (like :func:`estimate`).

    Parameters
    ----------
    observed : ObservedTail
        From :func:`observe`.
    env : Environment
        Its ``n_tasks`` must equal the log's; its turnaround model (usually
        ``observed.turnaround_model()``, see :meth:`ObservedTail.environment`) drives the tail and
        the running instances' conditional outcomes.
    strategy : Strategy or str
        An NTDM_r strategy or TRR, TR, AUR, B (AR, CN_inf and CN1T0 change the throughput phase,
        which is observed here).
    n_reps : int
    seed : int, Generator or None
        Replication r uses the r-th stream, shared by every strategy (common random numbers).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`estimate`; ``t_tail`` and ``n_tail_tasks`` are the observed ones.

    Examples
    --------
    >>> from mopt.expert import Strategy
    >>> log = ThroughputLog(pd.DataFrame({"task": [0, 1, 2, 3, 4],
    ...     "send_time": [0, 0, 0, 900, 1000], "result_time": [1000, 1200, 900, None, None]}))
    >>> tail = observe(log, t_tail=1200, deadline=4000)
    >>> env = Environment(5, 3, 1000.0, 500.0, 1.0, 10.0, TurnaroundModel([1000.0], [0.0], [1.0]), mr_max=1.0)
    >>> estimate_online(tail, env, Strategy(0, 0.0, 4000.0, 1.0), n_reps=2, seed=0)[["makespan", "cost"]].values.tolist()
    [[500.0, 3020.0], [500.0, 3020.0]]
    """
    from mopt.expert.estimator import replication_frame, resolve_strategy, simulate_strategies

    if not isinstance(observed, ObservedTail):
        raise TypeError(f"'observed' must be an ObservedTail (see observe()); got {type(observed).__name__}.")
    observed.check_environment(env)
    n_reps = check_int("n_reps", n_reps, low=1)
    resolved = resolve_strategy(strategy, env)
    keys = replication_keys(resolve_seed(seed), np.arange(n_reps))
    reps = simulate_strategies(env, [resolved], keys, observed=observed)[0]
    return replication_frame(reps, env)
