"""A straightforward SimPy model of the ExPERT estimator (reference implementation).

This is an independent, readable implementation of the estimator semantics that
``mopt.expert._engine`` compiles with Numba.  It exists for two reasons:

* ``benchmarks/`` compares its speed with the compiled engine (the design asks for the engine to be
  at least 50x faster than "a straightforward SimPy model of the same estimator");
* ``tests/expert/test_reference.py`` checks that both implementations return *identical*
  replications for the same random key.

One call of :func:`simulate_one` simulates one replication of one strategy: the throughput phase
(all tasks queued to the unreliable pool, or to both pools for the "combined" variant, deadline
``d0``, failed tasks re-queued) until fewer tasks remain than unreliable machines, then the tail
phase under the NTDM_r strategy (two FCFS queues, timers, deadlines, cancellation of queued
instances, budget switch, combined pools).

Model structure (SimPy)
-----------------------
* The two machine pools are :class:`simpy.Resource` objects; a machine is taken with a request
  that is always granted at once (tasks only leave a queue when a machine is idle).
* The two tail queues (and the throughput queue) are plain FCFS lists of queue entries.
* Every sent instance is a SimPy process that holds its machine until its result or its deadline;
  every send also starts a timer process (the "T" of NTDM_r).
* Events at equal times are processed in the order the estimator prescribes -- reliable results,
  unreliable results, unreliable failures, timers, ties by task id -- by giving every event an
  explicit SimPy priority (``Environment.schedule(event, priority, delay)``): SimPy processes
  events by (time, priority, insertion order).
* The paper's time step (§IV): in the tail, machines are allocated by one allocation event per
  instant, with a priority after every timer, so all results, failures and timers of the instant
  (each due task enqueuing at most one instance, in task order) come before any allocation.  A
  timer started by a send at this instant with T = 0 fires after that allocation, in a step of its
  own at the same time: the task enqueues behind the instances already queued.

Random numbers are counter-based (``uniform(key, task, k, stream)``), so the model needs no random
generator state and every strategy of a replication sees the same draws.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np
import simpy

__all__ = ["OUTPUT_COLUMNS", "simulate", "simulate_one", "uniform"]

OUTPUT_COLUMNS = (
    "makespan",
    "cost",
    "t_tail",
    "n_tail_tasks",
    "max_reliable_busy",
    "max_reliable_queue",
    "n_reliable_instances",
)

MAX_INSTANCES = 10_000_000
# tail unreliable instance j of a task has instance number TAIL_INSTANCE_BASE + j
TAIL_INSTANCE_BASE = 1_000_000

# ---------------------------------------------------------------------------------------------
# Counter-based random numbers (pure Python, explicit 64-bit wrapping)
# ---------------------------------------------------------------------------------------------
MASK64 = 0xFFFFFFFFFFFFFFFF


def _splitmix64_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def uniform(key: int, task: int, k: int, stream: int) -> float:
    """Uniform number in [0, 1) for instance ``k`` of ``task``, random ``stream`` (0 or 1)."""
    x = (
        (int(key) & MASK64)
        ^ (((task + 1) * 0x9E3779B97F4A7C15) & MASK64)
        ^ (((k + 1) * 0xC2B2AE3D27D4EB4F) & MASK64)
        ^ (((stream + 1) * 0x165667B19E3779F9) & MASK64)
    )
    x = _splitmix64_mix(x)
    x = _splitmix64_mix(x ^ 0xD6E8FEB86659FD93)
    return (x >> 11) * 2.0**-53


# ---------------------------------------------------------------------------------------------
# Event ordering at equal times
# ---------------------------------------------------------------------------------------------
# SimPy uses priority 0 (URGENT: process initialisation) and 1 (NORMAL: succeed(), requests);
# the estimator's own events come after those, in this order of kinds, ties by task id.
RELIABLE_RESULT, UNRELIABLE_RESULT, UNRELIABLE_FAILURE, TIMER = range(4)
_FIRST_PRIORITY = 2


class _At(simpy.Event):
    """A timeout with an explicit priority among events at the same time."""

    def __init__(self, env: simpy.Environment, delay: float, priority: int):
        super().__init__(env)
        self._ok = True
        self._value = None
        env.schedule(self, priority, delay)


class _Runaway(Exception):
    """More than ``max_instances`` instances were sent in a phase: the replication gives NaN."""


# ---------------------------------------------------------------------------------------------
# Model state
# ---------------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Task:
    id: int
    done: bool = False
    last_send: float = 0.0
    n_throughput: int = 0  # throughput instances sent so far (next instance number k)
    current_throughput: _Instance | None = None  # the most recent throughput instance
    n_tail_ur: int = 0  # tail unreliable instances sent or queued so far
    n_queued: int = 0  # instances waiting in a queue (not yet sent)
    has_reliable: bool = False  # a reliable instance is queued, running or done


@dataclass(eq=False)
class _Instance:
    task: _Task
    reliable: bool
    in_throughput: bool
    kind: int = 0  # RELIABLE_RESULT, UNRELIABLE_RESULT or UNRELIABLE_FAILURE
    duration: float = 0.0  # time from sending to result (or to the deadline)
    pay: float = 0.0  # what the instance costs (paid when its result returns)


@dataclass(eq=False)
class _Entry:
    """A queued instance: its task, whether it is reliable, its instance number."""

    task: _Task
    reliable: bool
    k: int = 0
    deadline: float = 0.0


@dataclass
class _Outputs:
    t_tail: float = 0.0
    n_tail_tasks: int = 0
    last_completion: float = 0.0
    max_reliable_busy: int = 0
    max_reliable_queue: int = 0
    n_reliable_instances: int = 0
    committed: float = 0.0  # every instance that returns (or will return) a result, at sending
    paid: float = 0.0  # results returned so far (strategy B compares the budget with this)
    tail_sends: int = 0
    throughput_sends: int = 0


class ExpertReplication:
    """One replication of one strategy of the ExPERT estimator, as a SimPy model."""

    def __init__(
        self,
        n_tasks,
        n_unreliable,
        t_r,
        d0,
        c_ur,
        c_r,
        charging_period_r,
        fs_table,
        gamma_breaks,
        gamma_values,
        N,
        T,
        D,
        n_rel,
        combine,
        combined_throughput,
        budget,
        key,
        max_instances=MAX_INSTANCES,
    ):
        self.max_instances = int(max_instances)
        self.n_tasks = int(n_tasks)
        self.n_unreliable = int(n_unreliable)
        self.t_r = float(t_r)
        self.d0 = float(d0)
        self.c_ur = float(c_ur)
        self.c_r = float(c_r)
        self.reliable_charge = math.ceil(self.t_r / float(charging_period_r)) * float(
            charging_period_r
        )
        self.fs_table = [float(v) for v in np.asarray(fs_table, dtype=np.float64)]
        self.gamma_breaks = [float(v) for v in np.asarray(gamma_breaks, dtype=np.float64)]
        self.gamma_values = [float(v) for v in np.asarray(gamma_values, dtype=np.float64)]
        self.n_rel = int(n_rel)
        self.combine = bool(combine)
        self.combined_throughput = bool(combined_throughput)
        self.budget = float(budget)
        self.key = int(key) & MASK64
        self.budget_mode = math.isfinite(self.budget)
        if self.budget_mode:  # strategy B: N = inf, T = D = d0 until the switch to reliable
            N, T, D = -1, self.d0, self.d0
        # no reliable pool -> N is treated as infinity
        self.N = math.inf if (int(N) < 0 or self.n_rel == 0) else int(N)
        self.T = float(T)
        self.D = float(D)

        self.env = simpy.Environment(initial_time=0.0)
        self.unreliable_pool = simpy.Resource(self.env, capacity=self.n_unreliable)
        self.reliable_pool = (
            simpy.Resource(self.env, capacity=self.n_rel) if self.n_rel > 0 else None
        )
        self.tasks = [_Task(j) for j in range(self.n_tasks)]
        self.remaining = self.n_tasks
        self.in_tail = False
        self.switched_to_reliable = False  # strategy B has switched
        self.throughput_queue: list[_Task] = []
        self.unreliable_queue: list[_Entry] = []
        self.reliable_queue: list[_Entry] = []
        self.tail_started = self.env.event()
        self.all_done = self.env.event()
        self.allocation_pending = False  # an allocation event is scheduled at the current time
        self.budget_check_pending = False  # a budget check (strategy B) is scheduled likewise
        self.out = _Outputs()

    # -- random inputs --------------------------------------------------------------------------
    def gamma(self, sent_at: float) -> float:
        k = bisect.bisect_right(self.gamma_breaks, sent_at) - 1
        return self.gamma_values[max(k, 0)]

    def _priority(self, kind: int, task: _Task) -> int:
        return _FIRST_PRIORITY + kind * (self.n_tasks + 1) + task.id

    # -- sending an instance --------------------------------------------------------------------
    def _send(self, task: _Task, reliable: bool, k: int, deadline: float, in_throughput: bool):
        """Start an instance of ``task`` now on an idle machine of the chosen pool."""
        env = self.env
        pool = self.reliable_pool if reliable else self.unreliable_pool
        request = pool.request()
        assert request.triggered, "dispatch only sends to idle machines"
        inst = _Instance(task, reliable, in_throughput)
        if reliable:
            inst.kind, inst.duration = RELIABLE_RESULT, self.t_r
            inst.pay = self.c_r * self.reliable_charge
        else:
            L = len(self.fs_table)
            succeeds = uniform(self.key, task.id, k, 0) < self.gamma(env.now)
            turnaround = self.fs_table[min(int(uniform(self.key, task.id, k, 1) * L), L - 1)]
            if succeeds and turnaround < deadline:
                inst.kind, inst.duration = UNRELIABLE_RESULT, turnaround
                inst.pay = self.c_ur * turnaround
            else:
                inst.kind, inst.duration = UNRELIABLE_FAILURE, deadline
        # A running instance is never aborted: whether (and what) it will be paid is known now.
        self.out.committed += inst.pay
        task.last_send = env.now
        if in_throughput:
            task.current_throughput = inst
            self.out.throughput_sends += 1
            if self.out.throughput_sends > self.max_instances:
                raise _Runaway
        else:
            self.out.tail_sends += 1
            if self.out.tail_sends > self.max_instances:
                raise _Runaway
            if reliable:
                self.out.n_reliable_instances += 1
        if reliable:
            task.has_reliable = True
            if self.in_tail:
                self.out.max_reliable_busy = max(self.out.max_reliable_busy, pool.count)
        env.process(self._instance(inst, pool, request))
        env.process(self._timer(inst))

    def _instance(self, inst: _Instance, pool: simpy.Resource, request):
        """An instance occupies its machine until its result or its deadline."""
        yield _At(self.env, inst.duration, self._priority(inst.kind, inst.task))
        pool.release(request)
        task = inst.task
        if inst.kind == UNRELIABLE_FAILURE:
            if not self.in_tail:  # throughput phase: the task goes back to the end of the queue
                self.throughput_queue.append(task)
        else:
            self.out.paid += inst.pay  # every result is paid, also a redundant one
            if not task.done:  # the first result of a task completes it
                task.done = True
                self.remaining -= 1
                self.out.last_completion = self.env.now
            if self.in_tail:
                self._request_budget_check()
        self._after_event()

    def _timer(self, inst: _Instance):
        """The NTDM_r timer: T after an instance is sent, the task may get a new instance."""
        task = inst.task
        yield _At(self.env, self.T, self._priority(TIMER, task))
        if not self.in_tail:
            # A throughput instance: only the timer of a task's running instance at T_tail counts,
            # and if it expired before T_tail it fires at T_tail (after results and failures).
            yield self.tail_started
            if task.done or task.current_throughput is not inst:
                return
            yield _At(self.env, 0.0, self._priority(TIMER, task))
        if inst.in_throughput and task.current_throughput is not inst:
            return  # an earlier, failed throughput instance of the task
        self._on_timer(task)
        self._after_event()

    def _on_timer(self, task: _Task):
        if task.done or task.n_queued > 0 or task.has_reliable:
            return
        if task.n_tail_ur < self.N:  # N may be math.inf
            entry = _Entry(task, False, TAIL_INSTANCE_BASE + task.n_tail_ur, self.D)
            task.n_tail_ur += 1
            self._enqueue(entry)
        elif self.n_rel > 0:
            self._enqueue(_Entry(task, True))

    def _enqueue(self, entry: _Entry):
        entry.task.n_queued += 1
        if entry.reliable:
            entry.task.has_reliable = True
            self.reliable_queue.append(entry)
            live = sum(1 for e in self.reliable_queue if not e.task.done)
            self.out.max_reliable_queue = max(self.out.max_reliable_queue, live)
        else:
            self.unreliable_queue.append(entry)

    # -- after each event: budget check, dispatching, phase changes -------------------------------
    def _after_event(self):
        if not self.in_tail:
            self._dispatch_throughput()
            if self.remaining < self.n_unreliable:
                self._start_tail()
            return
        if self.remaining == 0:
            if not self.all_done.triggered:
                self.all_done.succeed()
            return
        self._request_allocation()

    def _request_allocation(self):
        """The paper's time step: machines are allocated once every result, failure and timer of
        the instant has been processed -- by an allocation event after all of them."""
        if not self.allocation_pending:
            self.allocation_pending = True
            _At(self.env, 0.0, self._priority(TIMER + 1, self.tasks[0])).callbacks.append(
                self._allocate
            )

    def _allocate(self, _event):
        """End of a time step: idle machines take the heads of their queues.

        A timer started by a send now (T = 0) fires after this event at the same time: a step of
        its own, in which the task enqueues behind the instances queued in this step.
        """
        self.allocation_pending = False
        self._dispatch_tail()

    def _request_budget_check(self):
        """Strategy B checks its budget after the results of an instant, before its failures."""
        if self.budget_mode and not self.switched_to_reliable and not self.budget_check_pending:
            self.budget_check_pending = True
            # the priority just after every result of the instant (task ids end at n_tasks - 1)
            priority = _FIRST_PRIORITY + UNRELIABLE_RESULT * (self.n_tasks + 1) + self.n_tasks
            _At(self.env, 0.0, priority).callbacks.append(self._budget_event)

    def _budget_event(self, _event):
        self.budget_check_pending = False
        self._check_budget()

    def _dispatch_throughput(self):
        queue = self.throughput_queue
        while queue:
            if self.unreliable_pool.count < self.unreliable_pool.capacity:
                task = queue.pop(0)
                k = task.n_throughput
                task.n_throughput += 1
                self._send(task, False, k, self.d0, in_throughput=True)
            elif (
                self.combined_throughput
                and self.reliable_pool is not None
                and self.reliable_pool.count < self.reliable_pool.capacity
            ):
                task = queue.pop(0)
                task.n_throughput += 1
                self._send(task, True, 0, 0.0, in_throughput=True)
            else:
                break

    @staticmethod
    def _next_live(queue: list[_Entry]) -> _Entry | None:
        """Pop the head of a queue, skipping (cancelling) entries of completed tasks."""
        while queue:
            entry = queue.pop(0)
            if not entry.task.done:
                entry.task.n_queued -= 1
                return entry
        return None

    def _dispatch_tail(self):
        upool, rpool = self.unreliable_pool, self.reliable_pool
        while upool.count < upool.capacity:
            entry = self._next_live(self.unreliable_queue)
            if entry is None:
                break
            self._send(entry.task, False, entry.k, entry.deadline, in_throughput=False)
        if rpool is None:
            return
        while rpool.count < rpool.capacity:
            entry = self._next_live(self.reliable_queue)
            if entry is None:
                break
            self._send(entry.task, True, 0, 0.0, in_throughput=False)
        if self.combine:  # CN_inf: the unreliable queue spills onto idle reliable machines
            while rpool.count < rpool.capacity:
                entry = self._next_live(self.unreliable_queue)
                if entry is None:
                    break
                self._send(entry.task, True, 0, 0.0, in_throughput=False)

    def _check_budget(self):
        """Strategy B: once the remaining tasks fit the remaining budget on reliable machines."""
        if not self.budget_mode or self.switched_to_reliable or self.n_rel == 0:
            return
        if self.remaining * self.c_r * self.reliable_charge <= self.budget - self.out.paid:
            self.switched_to_reliable = True
            self.N = 0  # no more unreliable instances are enqueued
            for task in self.tasks:
                if not task.done and not task.has_reliable:
                    self._enqueue(_Entry(task, True))

    def _start_tail(self):
        self.in_tail = True
        self.out.t_tail = self.env.now
        self.out.n_tail_tasks = self.remaining
        self.out.last_completion = self.env.now
        if self.reliable_pool is not None:  # throughput instances still on reliable machines
            self.out.max_reliable_busy = self.reliable_pool.count
        self.tail_started.succeed()
        # The rest of this instant (results, failures, timers) belongs to the tail's first step.
        self._request_budget_check()
        self._request_allocation()
        if self.remaining == 0:
            self.all_done.succeed()

    # -- running ----------------------------------------------------------------------------------
    def run(self) -> tuple[float, ...]:
        try:
            self.throughput_queue.extend(self.tasks)  # at time 0 all machines take tasks
            self._after_event()
            self.env.run(until=self.all_done)
        except _Runaway:
            return (math.nan,) * len(OUTPUT_COLUMNS)
        except RuntimeError as exc:  # no events left before every task finished: never ends
            if "No scheduled events left" not in str(exc):
                raise
            return (math.nan,) * len(OUTPUT_COLUMNS)
        o = self.out
        return (
            o.last_completion - o.t_tail,
            o.committed / self.n_tasks,
            o.t_tail,
            float(o.n_tail_tasks),
            float(o.max_reliable_busy),
            float(o.max_reliable_queue),
            float(o.n_reliable_instances),
        )


def simulate_one(
    n_tasks,
    n_unreliable,
    t_r,
    d0,
    c_ur,
    c_r,
    charging_period_r,
    fs_table,
    gamma_breaks,
    gamma_values,
    N,
    T,
    D,
    n_rel,
    combine,
    combined_throughput,
    budget,
    key,
    *,
    max_instances=MAX_INSTANCES,
) -> tuple[float, ...]:
    """One replication of one strategy; returns the values of :data:`OUTPUT_COLUMNS`.

    ``N = -1`` means infinity, ``budget = inf`` means no budget (strategy B otherwise).  More
    than ``max_instances`` instances sent in a phase gives a row of NaN.
    """
    return ExpertReplication(
        n_tasks, n_unreliable, t_r, d0, c_ur, c_r, charging_period_r, fs_table, gamma_breaks,
        gamma_values, N, T, D, n_rel, combine, combined_throughput, budget, key, max_instances,
    ).run()  # fmt: skip


def simulate(
    n_tasks,
    n_unreliable,
    t_r,
    d0,
    c_ur,
    c_r,
    charging_period_r,
    fs_table,
    gamma_breaks,
    gamma_values,
    N,
    T,
    D,
    n_rel,
    combine,
    combined_throughput,
    budget,
    keys,
    *,
    max_instances=MAX_INSTANCES,
) -> np.ndarray:
    """Every strategy (arrays ``N .. budget``) times every key: float64 (n_strategies, n_keys, 7)."""
    N, T, D, n_rel = np.atleast_1d(N), np.atleast_1d(T), np.atleast_1d(D), np.atleast_1d(n_rel)
    combine, combined_throughput = np.atleast_1d(combine), np.atleast_1d(combined_throughput)
    budget, keys = np.atleast_1d(budget), np.atleast_1d(keys)
    out = np.empty((len(N), len(keys), len(OUTPUT_COLUMNS)), dtype=np.float64)
    for i in range(len(N)):
        for r in range(len(keys)):
            out[i, r] = simulate_one(
                n_tasks, n_unreliable, t_r, d0, c_ur, c_r, charging_period_r, fs_table,
                gamma_breaks, gamma_values, int(N[i]), float(T[i]), float(D[i]), int(n_rel[i]),
                bool(combine[i]), bool(combined_throughput[i]), float(budget[i]), int(keys[r]),
                max_instances=max_instances,
            )  # fmt: skip
    return out
