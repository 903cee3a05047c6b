"""What a search ends with, shared by :func:`mopt.solvers.base.run`, :func:`mopt.solvers.refine`
and the peers (:mod:`mopt.peers`): what it held released (:func:`close_search`) and its
evaluations summarised, equivalent designs and how sure with them (:func:`evaluations_of`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mopt.core.classes import class_ids
from mopt.core.result import evaluations_frame, sample_moments
from mopt.core.uncertainty import uncertainty_columns

__all__ = ["close_search", "evaluations_of"]


def close_search(runner, bar, journal) -> None:
    """Release what a search held: its runner, its progress bar and (when it opened it) its journal."""
    runner.close()
    if bar is not None:
        bar.close()
    if journal is not None:
        journal.close()


def evaluations_of(problem, order, samples, entropy, *, uncertainty=True):
    """``(evaluations, how_sure)``: the summary of designs ``order`` with replications ``samples``
    and, unless ``uncertainty`` is False (then None), how sure (:mod:`mopt.core.uncertainty`, from
    the replications, seeded by the run's seed ``entropy``)."""
    order = np.asarray(order, dtype=np.int64)
    means, ses, n = sample_moments(samples, problem.n_obj)
    classes = class_ids(samples, order)  # equivalent designs (mopt.core.classes)
    added = pd.DataFrame({"class": classes})
    how_sure = None
    if uncertainty:
        columns, how_sure = uncertainty_columns(means, ses, n, order, problem.objectives, samples=samples,
                                                rng=np.random.default_rng([entropy, 0x0CE7]), classes=classes)
        added = pd.concat([added, columns], axis=1)
    return evaluations_frame(problem.designs_frame(order), problem.objectives, means, ses, n, added), how_sure
