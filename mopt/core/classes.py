"""Classes of equivalent designs: designs whose replications are identical in every replication.

Under common random numbers many strategies are the same strategy: a parameter that never comes
into play (ExPERT's M_r when N = inf, a deadline D that never fires) leaves every replication's
outcome unchanged, so the designs differing only in it give the same numbers, replication by
replication. They are one class: the front, the decisions and the probabilities count classes, not
designs (issue #33). With independent noise no two designs share a class.

A design's class is decided by exact equality of its replications (every objective of every
replication, and their count); a design without replications is a class of its own. Classes are
numbered 0, 1, ... in the order of their representatives, each class's smallest design index.
The test is cheap: one integer hash of each design's replications (their bits), then exact
comparison within the groups of equal hashes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["class_ids", "renumber", "representatives", "class_table", "varies"]


def class_ids(samples, design_ids=None) -> np.ndarray:
    """(D,) int64 class of each design with replications ``samples[k]`` (n_k, m), or a (D, n, m)
    array of them (None entries: a class each). Classes are numbered in the order of their
    smallest design index (``design_ids``, default ``0 .. D-1``).

    Examples
    --------
    >>> a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 5.0]])
    >>> class_ids([b, a, a.copy(), None, b]).tolist()
    [0, 1, 1, 2, 0]
    """
    D = len(samples)
    ids = np.arange(D, dtype=np.int64) if design_ids is None else np.asarray(design_ids, dtype=np.int64)
    if D == 0:
        return np.empty(0, dtype=np.int64)
    raw = np.full(D, -1, dtype=np.int64)  # a provisional class per design
    if isinstance(samples, np.ndarray) and samples.ndim == 3:
        groups = [(np.arange(D), samples.reshape(D, -1))]
    else:
        by_shape: dict = {}
        for k, s in enumerate(samples):
            if s is not None:
                by_shape.setdefault(np.shape(s), []).append(k)
        groups = [(np.array(rows), np.stack([np.asarray(samples[k], dtype=float) for k in rows]).reshape(len(rows), -1))
                  for rows in by_shape.values()]
    rng = np.random.default_rng(0xC1A55)
    next_class = 0
    for rows, flat in groups:
        flat = np.ascontiguousarray(flat, dtype=float)
        if flat.shape[1] == 0:
            key = np.zeros(len(rows))
        else:  # one integer per design: equal replications give equal integers
            key = _key(flat, rng)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        sizes = np.diff(np.r_[starts, len(order)])
        single = starts[sizes == 1]  # a key of its own: a class of its own
        raw[rows[order[single]]] = next_class + np.arange(len(single))
        next_class += len(single)
        multi = sizes > 1
        if not multi.any():
            continue
        # runs of equal keys: compare each row exactly with its run's first, all runs at once
        run_of = np.repeat(np.arange(int(multi.sum())), sizes[multi])
        members = order[np.repeat(multi, sizes)]  # the runs are contiguous in ``order``
        heads = order[starts[multi]]
        exact = ((flat[members] == flat[heads[run_of]]) | (np.isnan(flat[members]) & np.isnan(flat[heads[run_of]]))
                 ).all(axis=1)
        clean = np.bincount(run_of, weights=(~exact).astype(float), minlength=len(heads)) == 0
        raw[rows[members[clean[run_of]]]] = next_class + run_of[clean[run_of]]
        next_class += len(heads)
        for start, size in zip(starts[multi][~clean].tolist(), sizes[multi][~clean].tolist(), strict=True):
            run = order[start:start + size]  # a hash shared by unequal rows: split it one by one
            while len(run):
                same = (flat[run] == flat[run[0]]) | (np.isnan(flat[run]) & np.isnan(flat[run[0]]))
                same = same.all(axis=1)
                raw[rows[run[same]]] = next_class
                next_class += 1
                run = run[~same]
    alone = raw < 0
    raw[alone] = next_class + np.arange(int(alone.sum()))
    return renumber(raw, ids)


def _key(flat: np.ndarray, rng) -> np.ndarray:
    """One integer per row, equal for rows of equal bits: the bits times random odd multipliers,
    summed with wrap-around (integer arithmetic: exact, whatever the row's place in memory, unlike
    a floating-point product whose rounding may depend on it)."""
    bits = flat.view(np.uint64)
    mult = rng.integers(1, 2**63, size=flat.shape[1], dtype=np.uint64) | np.uint64(1)
    key = np.zeros(len(flat), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo in range(0, flat.shape[1], 64):  # blocks of columns: small temporaries
            key += (bits[:, lo:lo + 64] * mult[lo:lo + 64]).sum(axis=1, dtype=np.uint64)
    return key


def renumber(labels, design_ids) -> np.ndarray:
    """Class labels (any non-negative integers, equal within a class) numbered 0, 1, ... in the
    order of each class's smallest design index.

    Examples
    --------
    >>> renumber([7, 3, 7, 9], [4, 1, 0, 2]).tolist()
    [0, 1, 0, 2]
    """
    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) == 0:
        return labels
    _, raw = np.unique(labels, return_inverse=True)
    raw = raw.ravel()
    n = int(raw.max()) + 1
    smallest = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(smallest, raw, np.asarray(design_ids, dtype=np.int64))
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(smallest, kind="stable")] = np.arange(n)
    return rank[raw]


def representatives(evaluations: pd.DataFrame) -> pd.DataFrame:
    """One row per class (the row of its smallest design index), in the order of ``evaluations``,
    with ``n_designs``, the class's size, after ``class``. Without a ``class`` column every row is
    its own class."""
    ev = evaluations
    if "class" not in ev.columns or len(ev) == 0:
        out = ev.copy()
        if "n_designs" not in out.columns:
            out.insert(len(out.columns), "n_designs", np.ones(len(out), dtype=np.int64))
        return out
    cls = ev["class"].to_numpy(dtype=np.int64)
    design = ev["design"].to_numpy(dtype=np.int64)
    order = np.lexsort((design, cls))
    first = np.ones(len(order), dtype=bool)
    first[1:] = cls[order][1:] != cls[order][:-1]
    keep = np.sort(order[first])
    size = np.bincount(cls)
    out = ev.iloc[keep].copy()
    if "n_designs" in out.columns:
        out = out.drop(columns="n_designs")
    out.insert(int(out.columns.get_loc("class")) + 1, "n_designs", size[cls[keep]].astype(np.int64))
    return out


def varies(evaluations: pd.DataFrame, parameters: list[str]) -> pd.Series:
    """Per class, the parameters that vary inside it, as text: ``"Mr: any of 0.02 … inf"``
    (``;``-separated; "" where none varies). Indexed by class."""
    ev = evaluations
    if "class" not in ev.columns or not parameters or len(ev) == 0:
        classes = ev["class"].unique() if "class" in ev.columns else ev.index
        return pd.Series("", index=pd.Index(sorted(classes), name="class"), dtype=object)
    sizes = ev.groupby("class", sort=True).size()
    texts = pd.Series("", index=sizes.index, dtype=object)
    multi = sizes.index[sizes.to_numpy() > 1]
    if len(multi) == 0:
        return texts
    sub = ev[ev["class"].isin(multi)]
    for c, rows in sub.groupby("class", sort=True):
        parts = []
        for name in parameters:
            values = pd.unique(rows[name].dropna())
            if len(values) > 1:
                parts.append(f"{name}: {_any_of(values)}")
        texts.loc[c] = "; ".join(parts)
    return texts


def _any_of(values) -> str:
    try:
        ordered = sorted(values)
    except TypeError:
        ordered = sorted(values, key=str)
    shown = [_text(v) for v in ordered]
    if len(shown) <= 3:
        return "any of " + ", ".join(shown)
    return f"any of {shown[0]} … {shown[-1]} ({len(shown)} values)"


def _text(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "inf" if np.isinf(v) else f"{float(v):.4g}"
    return str(v)


def class_table(evaluations: pd.DataFrame, objectives, parameters: list[str]) -> pd.DataFrame:
    """``Result.classes``: one row per class — ``class``, ``n_designs``, ``design`` (its
    representative, the smallest design index), each objective's mean and standard error,
    ``n_reps``, ``p_nondominated`` (when the result has it) and ``varies`` — ordered by class."""
    reps = representatives(evaluations).sort_values("class" if "class" in evaluations.columns else "design")
    if "class" not in reps.columns:
        reps.insert(0, "class", np.arange(len(reps), dtype=np.int64))
    columns = ["class", "n_designs", "design"]
    for o in objectives:
        columns += [o] + ([f"{o}_se"] if f"{o}_se" in reps.columns else [])
    columns += [c for c in ("n_reps", "p_nondominated") if c in reps.columns]
    out = reps[columns].reset_index(drop=True)
    text = varies(evaluations, parameters)
    out["varies"] = text.reindex(out["class"].to_numpy()).fillna("").to_numpy() if len(text) else ""
    return out
