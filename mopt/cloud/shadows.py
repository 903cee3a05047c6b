"""Shadow runs for mopt's selection rule (ours): each constituent's realised recent performance.

SC13 calls the scheduler's look back at how its policies did "reflection". Here every constituent
runs alone beside the real run, over the same arrivals, in step with the real clock (a shadow
never runs past the real clock, so it sees no future job). Every ``refresh`` seconds each
shadow's totals are recorded; a policy's recent utility is U over the last ``lookback`` seconds of
its own run: the busy and charged VM-seconds and the bounded slowdowns of the jobs started in that
span (VM-seconds are counted when a job starts and when a VM is released, so the span's edges
are blurred by at most one run and one hour). :meth:`Shadows.shortlist` names the ``size`` best;
mopt's rule simulates only those (and the incumbent) at a selection. The shadows cost what the
constituents' own runs cost: one run of each over the trace in all.

Without actual runtimes (``runtime="predicted"`` or ``"user"``) a shadow knows only what the real
scheduler knows (ours): at each record, a job that has finished in the real run lasts its actual
runtime in the shadows; any other job submitted by then lasts the runtime variant's estimate as
the real run has it then (a job running past its estimate: its request, then one more tick), fixed
when the job starts in a shadow; and each shadow's user history is the real run's, with the
shadow's own completions recorded over it. So a shadow never uses the runtime of a job that has
not finished in reality. And the shadows then lag the real clock by one ``refresh``: at a record
at time t they run to t - refresh, so that the jobs they start have mostly finished in reality by
t and run their actual runtimes (without the lag, every day's last hours of jobs ran for their
estimates, mostly the request: measured with predicted runtimes, whole traces, mopt's rule's U
against the best constituent without → with the lag: LPC-EGEE −18.5 → −4.8 %, SDSC-SP2 −3.9 →
−0.5 %, KTH-SP2 −0.6 → −0.7 %). With actual runtimes the shadows run the trace as it is, in step
with the real clock.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from mopt.cloud import engine as E
from mopt.workloads.prediction import predict_sc13_many

__all__ = ["Shadows"]


class Shadows:
    """Every policy of ``codes`` run alone over ``jobs``, in step with ``state`` (module docstring).

    Parameters
    ----------
    state : CloudState
        The real run (its clock, and the cloud's parameters for the shadows' start).
    jobs : numpy.ndarray
        The trace table.
    codes : numpy.ndarray
        (N, 3) policy codes.
    lookback, refresh : float
        Seconds of the recent past scored, and between two records of the shadows' totals.
    kappa, alpha, beta : float
        U's parameters.
    start : numpy.ndarray, optional
        The real run's start times per job (NaN: not started), as it fills them; needed without
        actual runtimes (module docstring).
    """

    def __init__(self, state, jobs, codes, *, lookback: float, refresh: float, kappa: float,
                 alpha: float, beta: float, start=None):
        sc = state.scalars
        self.state, self.start = state, start
        self.known_only = int(sc[E.S_MODE]) != E.ACTUAL
        if self.known_only and start is None:
            raise ValueError("Shadows without actual runtimes need the real run's start times.")
        self.jobs = jobs.copy() if self.known_only else jobs  # its runtimes: what is known
        self.truth = jobs
        self._final = 0  # the jobs before it have finished in reality (their runtimes are final)
        self.codes = codes
        self.lookback, self.refresh = float(lookback), float(refresh)
        self.lag = self.refresh if self.known_only else 0.0  # module docstring
        self.utility = (float(kappa), float(alpha), float(beta))
        self.runs = [E.CloudState.start(jobs, step=float(sc[E.S_STEP]),
                                        boot_delay=float(sc[E.S_BOOT]), max_vms=int(sc[E.S_CAP]),
                                        n_users=state.history.shape[0],
                                        runtime=int(sc[E.S_MODE])) for _ in codes]
        self.done = [False] * len(codes)
        self.records: deque = deque()  # (time, (N, 4) totals: busy, paid, bsd sum, started)
        self.next_record = float(sc[E.S_CLOCK])
        self._ranked: list[int] | None = None

    def _totals(self) -> np.ndarray:
        return np.array([[r.scalars[E.S_BUSY], r.scalars[E.S_PAID], r.scalars[E.S_BSD],
                          r.scalars[E.S_STARTED]] for r in self.runs])

    def catch_up(self, now: float) -> None:
        """Run the shadows to ``now`` (less the lag) and record their totals if a record is due."""
        if now < self.next_record:
            return
        if self.known_only:
            self._known_runtimes(now)
        until = now - self.lag
        for p, run in enumerate(self.runs):
            if not self.done[p] and run.clock < until:
                if self.known_only:
                    nq = int(run.scalars[E.S_NQ])
                    run.queue[:nq, E.Q_RUN] = self.jobs[run.queue[:nq, E.Q_ID].astype(np.int64),
                                                        E.J_RUN]
                    run.history[:] = self.state.history
                self.done[p] = run.advance(self.jobs, self.codes[p], until=until) == E.DONE
        self.records.append((until, self._totals()))
        while len(self.records) > 1 and self.records[1][0] <= until - self.lookback:
            self.records.popleft()
        self.next_record = now + self.refresh
        self._ranked = None

    def _known_runtimes(self, now: float) -> None:
        """The shadows' runtimes of the jobs submitted by ``now``, as known now (module
        docstring)."""
        truth, table, sc = self.truth, self.jobs, self.state.scalars
        arrived = int(sc[E.S_NEXT])
        lo = self._final
        start = self.start[lo:arrived]
        finished = start + truth[lo:arrived, E.J_RUN] <= now  # NaN (not started): False
        req = truth[lo:arrived, E.J_REQ]
        if int(sc[E.S_MODE]) == E.PREDICTED:
            est = predict_sc13_many(self.state.history, truth[lo:arrived, E.J_USER], req)
        else:
            est = truth[lo:arrived, E.J_EST].copy()
        step = float(sc[E.S_STEP])
        past = start + est <= now  # running past its estimate: its request, then one more tick
        est = np.where(past, req, est)
        past = start + est <= now
        est = np.where(past, now - start + step, est)
        table[lo:arrived, E.J_RUN] = np.where(finished, truth[lo:arrived, E.J_RUN], est)
        unfinished = np.flatnonzero(~finished)
        self._final = lo + (int(unfinished[0]) if len(unfinished) else arrived - lo)

    def recent_utility(self) -> np.ndarray:
        """Each policy's U over the span between the oldest kept record and the newest."""
        (_, first), (_, last) = self.records[0], self.records[-1]
        busy, paid, bsd, started = (last - first).T
        kappa, alpha, beta = self.utility
        return np.array([E.utility(b, p, s / n if n > 0 else 1.0, kappa, alpha, beta)
                         for b, p, s, n in zip(busy, paid, bsd, started, strict=True)])

    def shortlist(self, now: float, size: int) -> list[int] | None:
        """The ``size`` policies with the best recent U (ties: portfolio order), or None while
        less than one refresh has been recorded or nothing was charged in the span."""
        self.catch_up(now)
        if len(self.records) < 2:
            return None
        if self._ranked is None:
            scores = self.recent_utility()
            if not np.any(scores > 0):
                return None
            self._ranked = sorted(range(len(scores)), key=lambda p: -scores[p])
        return self._ranked[:size]
