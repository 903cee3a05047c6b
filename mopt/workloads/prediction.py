"""Runtime prediction from a user's recent jobs (Tsafrir et al.), compiled, for every simulator.

SC13 (§4, spec ``cloud.md`` §4) and KOALA-C (§III-B, spec ``koala.md`` §1) both predict a job's
runtime as the mean runtime of the same user's two most recent finished jobs. Both keep those
two jobs in one **history** array, float64 of shape (n_users, 4), one row per user:

=================  =====================================================================
``NEWEST_KEY``     the order key of the user's most recent finished job (-1: none yet)
``OLDER_KEY``      the key of the one before it (-1: none)
``NEWEST_RUN``     their runtimes (s)
``OLDER_RUN``
=================  =====================================================================

:func:`record_finished` keeps, per user, the two finished jobs with the largest key, and
:func:`recent_mean` reads their mean. The two papers' rules differ, so each simulator has its own
small predictor over that one history (the differences are the papers', not the code's):

* :func:`predict_sc13` (Tsafrir et al., as SC13 uses it): "recent" is the submission order (the
  key is the job's index in the submit-sorted trace), the prediction is capped at the user's
  requested time, and a user without a finished job gets the requested time, or the actual
  runtime where the trace has no request (spec ``cloud.md`` §4);
* :func:`predict_koala` (KOALA-C §III-B): "recent" is the completion order (the key counts
  completions), no cap, and a user without a finished job gets the requested time if positive,
  else the mean runtime of all jobs finished so far (ours; 0 before any).

Examples
--------
>>> history = new_history(2)
>>> record_finished(history, 0, 5.0, 100.0)
>>> predict_sc13(history, 0, -1.0, 7.0), predict_sc13(history, 1, -1.0, 7.0)
(100.0, 7.0)
>>> record_finished(history, 0, 9.0, 300.0)
>>> recent_mean(history, 0), predict_sc13(history, 0, 150.0, 7.0)
((2, 200.0), 150.0)
>>> record_finished(history, 0, 7.0, 50.0)  # submitted before job 9, after job 5
>>> history[0].tolist()
[9.0, 7.0, 300.0, 50.0]
>>> predict_koala(history, 1, -1.0, 60.0), predict_koala(history, 0, -1.0, 60.0)
(60.0, 175.0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["NEWEST_KEY", "OLDER_KEY", "NEWEST_RUN", "OLDER_RUN", "new_history", "record_finished",
           "recent_mean", "predict_sc13", "predict_sc13_many", "predict_koala"]

NEWEST_KEY, OLDER_KEY, NEWEST_RUN, OLDER_RUN = range(4)

#: the predictors run inside the simulators' steps, compiled like them without reference counting
#: (they allocate nothing; why: :mod:`mopt.cloud.kernels`)
_kernel = njit(cache=True, _nrt=False)


@njit(cache=True)
def new_history(n_users):
    """An empty history for ``n_users`` users (at least one row)."""
    return np.full((max(n_users, 1), 4), -1.0)


@_kernel
def record_finished(history, user, key, runtime):
    """A job of ``user`` with order ``key`` finished after ``runtime`` s: keep the user's two
    finished jobs with the largest keys."""
    if key > history[user, NEWEST_KEY]:
        history[user, OLDER_KEY] = history[user, NEWEST_KEY]
        history[user, OLDER_RUN] = history[user, NEWEST_RUN]
        history[user, NEWEST_KEY] = key
        history[user, NEWEST_RUN] = runtime
    elif key > history[user, OLDER_KEY]:
        history[user, OLDER_KEY] = key
        history[user, OLDER_RUN] = runtime


@_kernel
def recent_mean(history, user):
    """``(known, mean)``: how many of the user's two recent jobs are known (0, 1 or 2) and the
    mean of their runtimes (the one runtime if one, 0.0 if none)."""
    if history[user, OLDER_KEY] >= 0:
        return 2, 0.5 * (history[user, NEWEST_RUN] + history[user, OLDER_RUN])
    if history[user, NEWEST_KEY] >= 0:
        return 1, history[user, NEWEST_RUN]
    return 0, 0.0


@_kernel
def predict_sc13(history, user, req, run):
    """SC13's predicted runtime of a job of ``user`` (-1: unknown) asking ``req`` s (<= 0: no
    request) that really runs ``run`` s: the recent mean capped at ``req``; without a finished
    job, ``req``, or ``run`` where there is no request."""
    guess = req if req > 0 else run
    if user >= 0:
        known, mean = recent_mean(history, user)
        if known > 0:
            guess = mean
            if req > 0:
                guess = min(guess, req)
    return guess


@njit(cache=True)
def predict_sc13_many(history, users, reqs):
    """:func:`predict_sc13` for many jobs (users, requests: float arrays; every request > 0)."""
    out = np.empty(users.shape[0])
    for i in range(users.shape[0]):
        out[i] = predict_sc13(history, int(users[i]), reqs[i], reqs[i])
    return out


@_kernel
def predict_koala(history, user, req, finished_mean):
    """KOALA-C's predicted runtime of a job of ``user`` asking ``req`` s: the recent mean; without
    a finished job, ``req`` if positive, else ``finished_mean`` (all jobs finished so far)."""
    known, mean = recent_mean(history, user)
    if known > 0:
        return mean
    if req > 0:
        return req
    return finished_mean
