"""Result: what a search evaluated, its Pareto front, and decisions by utility."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.classes import class_table, representatives
from mopt.core.errors import InputError
from mopt.core.inputs import read_json, read_text
from mopt.core.moments import sample_moments
from mopt.core.pareto import pareto_mask
from mopt.core.set_writer import _sha256, atomic_write, set_identity

__all__ = ["Result", "atomic_write", "evaluations_frame", "sample_moments", "summarise"]

#: how long :meth:`Result.read_csv` reads a set again while a writer keeps replacing it
READ_SECONDS = 2.0
_META = "result.json"


def summarise(design_params: pd.DataFrame, samples: list[np.ndarray], objectives) -> pd.DataFrame:
    """The ``evaluations`` table: parameters, per-objective mean and standard error, ``n_reps``.

    ``samples[k]`` holds the replications (n_reps_k, n_obj) of the design in row ``k``.
    """
    return evaluations_frame(design_params, objectives, *sample_moments(samples, len(objectives)))


def evaluations_frame(design_params: pd.DataFrame, objectives, means, ses, n_reps,
                      extra: pd.DataFrame | None = None) -> pd.DataFrame:
    """The ``evaluations`` table from the designs' parameters and :func:`sample_moments`, with
    ``extra`` columns (as many rows) appended after ``n_reps``: built in one step."""
    names = [name for o in objectives for name in (o, f"{o}_se")]
    block = np.empty((len(means), len(names)))
    block[:, 0::2] = means
    block[:, 1::2] = ses
    parts = [design_params.reset_index(drop=True), pd.DataFrame(block, columns=names),
             pd.DataFrame({"n_reps": np.asarray(n_reps, dtype=np.int64)})]
    if extra is not None:
        parts.append(extra.set_axis(pd.RangeIndex(len(means)), axis=0))
    return pd.concat(parts, axis=1)


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of :func:`mopt.solve`.

    Attributes
    ----------
    method : str
        The search method.
    seed : int
        The entropy of the run's seed tree (rerun with it to get the same result).
    n_evals : int
        Replications spent.
    objectives : tuple of str
        Objective names (all minimised).
    evaluations : pandas.DataFrame
        One row per evaluated design: ``design`` index, decoded parameters, per objective the mean
        and ``<objective>_se`` (standard error), and ``n_reps``.
    info : dict
        Method-specific extras (JSON-serialisable).

    Notes
    -----
    A Result is an immutable value: ``==`` compares every field (``evaluations`` by columns, dtypes
    and values) and ``hash(result)`` works, so results can be set members or dict keys.
    """

    method: str
    seed: int
    n_evals: int
    objectives: tuple[str, ...]
    evaluations: pd.DataFrame
    info: dict = field(default_factory=dict)

    @property
    def front(self) -> pd.DataFrame:
        """Rows of ``evaluations`` that are Pareto-efficient on the objective means, one per class
        of equivalent designs (its representative, the smallest design index, with ``n_designs``
        after ``class``; :mod:`mopt.core.classes`), sorted by the objectives."""
        ev = self.evaluations
        if len(ev) == 0:
            return ev
        mask = pareto_mask(ev[list(self.objectives)].to_numpy(dtype=float))
        front = representatives(ev[mask]) if "class" in ev.columns else ev[mask]
        return front.sort_values([*self.objectives, "design"]).reset_index(drop=True)

    @property
    def classes(self) -> pd.DataFrame:
        """One row per class of equivalent designs (designs whose replications are identical in
        every replication, as under common random numbers): ``class``, ``n_designs``, ``design``
        (its representative, the smallest design index), each objective's mean and standard
        error, ``n_reps``, ``p_nondominated`` and ``varies`` (the parameters that vary inside the
        class, e.g. ``"Mr: any of 0.02 … inf (5 values)"``). Without a ``class`` column (a result
        of an earlier release) every design is a class of its own.

        Examples
        --------
        >>> import mopt
        >>> same = mopt.NormalProblem([[1, 5], [1, 5], [5, 1]], sd=0.0)  # designs 0 and 1: equal
        >>> classes = mopt.solve(same, "exhaustive", seed=1).classes
        >>> classes[["class", "n_designs", "design"]].to_numpy().tolist(), classes["varies"].tolist()
        ([[0, 2, 0], [1, 1, 2]], ['i: any of 0, 1', ''])
        """
        return class_table(self.evaluations, self.objectives, self.parameters)

    @property
    def parameters(self) -> list[str]:
        """The decoded parameters' columns of ``evaluations`` (after ``design``, before the first
        objective)."""
        columns = list(self.evaluations.columns)
        if not self.objectives or self.objectives[0] not in columns:
            return []
        return [c for c in columns[:columns.index(self.objectives[0])] if c != "design"]

    def certified(self, level: float = 0.95) -> pd.DataFrame:
        """One row per class of equivalent designs — ``class``, ``design`` (its representative) and
        ``status`` in {"efficient", "dominated", "undecided"} — certified at ``level`` for all
        classes at once and at every replication count at which one looks again
        (anytime-valid confidence sequences: :func:`mopt.core.certified.certified_sets`)."""
        from mopt.core.certified import certified_sets

        return certified_sets(self.evaluations, self.objectives, level=level)

    def best(self, utility) -> pd.Series:
        """The evaluated row that ``utility`` scores lowest. Ties are broken by the objectives, in
        order (so that ``minimize("makespan")`` never picks a design that another of the same
        makespan dominates), then by the lowest design index.

        Returns
        -------
        pandas.Series
            The row (object dtype, so each value keeps its type: ``design`` and ``n_reps`` are
            Python ints) plus its ``utility`` score, ``p_best`` (the probability that it is the
            utility's true best: :func:`mopt.core.choice_certainty.p_best`) and ``runner_up`` (the design
            most often best after it, or None).

        Examples
        --------
        >>> import mopt
        >>> result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.0), "exhaustive", seed=1)
        >>> row = result.best(mopt.utility.product("f1", "f2"))
        >>> row["design"], row["utility"]
        (1, 4.0)

        Two designs of the same ``f1``: the one with the lower ``f2`` is chosen, not the first.

        >>> tie = mopt.solve(mopt.NormalProblem([[1, 5], [1, 2], [5, 1]], sd=0.0), "exhaustive", seed=1)
        >>> int(tie.best(mopt.utility.minimize("f1"))["design"])
        1

        Raises
        ------
        ValueError
            If no row has a finite score (e.g. no strategy fits a budget).
        """
        ev = self.evaluations
        if not callable(utility):
            raise TypeError(f"'utility' must be callable (DataFrame -> Series); got {utility!r}.")
        scores = pd.Series(np.asarray(utility(ev), dtype=float), index=ev.index)
        finite = np.isfinite(scores.to_numpy())
        if not finite.any():
            raise InputError(f"no evaluated design satisfies utility {utility!r} (every score is inf or NaN).")
        tie_breaks = [ev[o].to_numpy(dtype=float) for o in reversed(self.objectives)]
        order = np.lexsort((ev["design"].to_numpy(), *tie_breaks, np.where(finite, scores.to_numpy(), np.inf)))
        k = order[0]
        values = {c: _py(ev[c].iloc[k]) for c in ev.columns}  # column by column: no upcast to float
        values["utility"] = float(scores.iloc[k])
        if all(f"{o}_se" in ev.columns for o in self.objectives):  # how sure (mopt.core.uncertainty)
            from mopt.core.choice_certainty import p_best
            from mopt.core.risk import resampled

            # a utility under risk reads estimates from the replications: resampled from their own
            # standard errors as the means are
            columns = resampled(ev, self.objectives, utility)
            values["p_best"], values["runner_up"] = ((None, None) if columns is None else
                                                     p_best(ev, columns, utility, int(k)))
        return pd.Series(values, dtype=object, name=ev.index[k])

    def replay(self, design: int, rep: int, problem=None, journal=None):
        """Replication ``rep`` of ``design`` simulated again from the run's seed and checked bit for
        bit against ``journal``, else this result (:func:`mopt.core.replay.replay`). A Result does
        not hold its problem: give ``problem``, the one the run searched."""
        from mopt.core.replay import replay

        return replay(problem, self, design, rep, journal=journal)

    def to_csv(self, directory: str | os.PathLike, *, files: Sequence[str] = ()) -> Path:
        """Write ``evaluations.csv``, ``front.csv`` and ``result.json`` into ``directory``.

        ``result.json`` is the manifest of the set: it lists the sha256 of the others and of
        ``files`` (more files of the same set, already written in ``directory``).  Every file is
        written into a private folder inside ``directory`` first, so any failure (a full disk,
        Ctrl-C) leaves the old set as it was; then the old ``result.json`` is removed, the files renamed into place and the
        new ``result.json`` renamed last (:func:`mopt.core.set_writer.replace_files`): :meth:`read_csv`
        never reads a mix of old and new files.  (The command line writes a whole new directory and
        swaps it in instead: :func:`mopt.core.set_writer.write_set`.)
        """
        from mopt.core.set_writer import replace_files

        d = Path(directory)
        replace_files(d, self._writers(), manifest=(_META, self._manifest_text), keep=files)
        return d

    def _writers(self) -> dict:
        """The writers of ``evaluations.csv`` and ``front.csv`` (name -> writer of a path)."""
        return {"evaluations.csv": lambda p: self.evaluations.to_csv(p, index=False),
                "front.csv": lambda p: self.front.to_csv(p, index=False)}

    def _manifest_text(self, files: dict) -> str:
        """``result.json``: the result's fields and ``files``, the sha256 of each file of the set."""
        meta = {"method": self.method, "seed": self.seed, "n_evals": self.n_evals,
                "objectives": list(self.objectives), "info": self.info, "files": dict(files)}
        return json.dumps(meta, indent=2, default=str)

    @classmethod
    def read_csv(cls, directory: str | os.PathLike) -> Result:
        """Read a result written by :meth:`to_csv`.

        A directory replaced while it is read (a run writing a new set into it: the new directory
        is swapped in, or the files renamed in by :meth:`to_csv`) is read again, for up to
        :data:`READ_SECONDS` while a writer keeps replacing it, so the files read are of one set.  ``evaluations.csv`` must be the bytes whose sha256 ``result.json``
        recorded (every set mopt writes records them; a result without them, older or written by
        hand, is read unchecked).

        Raises
        ------
        InputError
            A file is missing or malformed (the message names the file and the field or column),
            or ``evaluations.csv`` was edited after it was written (its sha256 differs).
        """
        d = Path(directory)
        # a set that changes while it is read is read again; a writer that keeps rewriting it is
        # waited for (short pauses after the first tries) up to READ_SECONDS, then what was read stands
        deadline = time.monotonic() + READ_SECONDS
        attempt = 0
        while True:
            before = set_identity(d)
            last = time.monotonic() >= deadline
            try:
                result = cls._read(d)
            except (InputError, OSError):
                if not last and set_identity(d) != before:
                    attempt += 1
                    time.sleep(0 if attempt < 5 else min(0.001 * 2 ** (attempt - 5), 0.05))
                    continue
                raise
            if set_identity(d) == before or last:
                return result
            attempt += 1

    @classmethod
    def _read(cls, d: Path) -> Result:
        for name in ("evaluations.csv", _META):
            if not os.path.lexists(d / name):
                raise InputError(f"'{d}' is not a mopt result directory: {name} is missing.")
        meta_path, ev_path = d / _META, d / "evaluations.csv"
        # regular files, bounded in size, line length and nesting (mopt.core.inputs)
        meta = read_json(meta_path, "mopt result metadata")
        fields = _read_meta(meta, meta_path)
        text = read_text(ev_path, "mopt result evaluations")
        _check_rows(text, ev_path)
        try:
            ev = pd.read_csv(io.StringIO(text))
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise InputError(f"'{ev_path}': malformed mopt result evaluations ({exc}).") from None
        _check_evaluations(ev, fields["objectives"], ev_path)
        # after the checks of its content (which say what is wrong with a file edited badly): a
        # file edited well is refused too, when the manifest recorded what was written
        _check_recorded(ev_path, meta, meta_path)
        return cls(evaluations=ev, **fields)

    def __eq__(self, other) -> bool:
        """Equal when method, seed, ``n_evals``, objectives, ``evaluations`` (same columns, dtypes,
        values; NaN equals NaN) and ``info`` are equal."""
        if not isinstance(other, Result):
            return NotImplemented
        return (
            (self.method, self.seed, self.n_evals, tuple(self.objectives))
            == (other.method, other.seed, other.n_evals, tuple(other.objectives))
            and _same_info(self.info, other.info)
            and list(self.evaluations.columns) == list(other.evaluations.columns)
            and self.evaluations.reset_index(drop=True).equals(other.evaluations.reset_index(drop=True))
        )

    def __hash__(self) -> int:
        """A Result is an immutable value: it hashes (consistently with ``==``) on its method, seed,
        ``n_evals``, objectives and the shape and columns of ``evaluations``.  Do not modify
        ``evaluations`` in place after using a Result as a key."""
        ev = self.evaluations
        return hash((self.method, self.seed, self.n_evals, tuple(self.objectives), tuple(ev.columns), len(ev)))

    def __repr__(self) -> str:
        return (
            f"Result(method={self.method!r}, seed={self.seed}, n_evals={self.n_evals}, "
            f"designs={len(self.evaluations)}, front={len(self.front)})"
        )

    def plot(self, **kw):
        """The front among every evaluated design, with intervals (:func:`mopt.result_plots.plot_result`)."""
        from mopt.result_plots import plot_result

        return plot_result(self, **kw)

    def to_html(self, path: str | os.PathLike, **kwargs) -> Path:
        """Write the HTML report (:func:`mopt.report.write_report`, which takes ``kwargs``)."""
        from mopt.report import write_report

        return write_report(self, path, **kwargs)

    def _repr_html_(self) -> str:
        from mopt.report import repr_html

        return repr_html(self)


def _read_meta(meta, path: Path) -> dict:
    """The fields of ``result.json``, validated (InputError naming the file and the field)."""
    where = f"'{path}': malformed mopt result"
    if not isinstance(meta, dict):
        raise InputError(f"{where}: expected a JSON object; got {type(meta).__name__}.")
    missing = [k for k in ("method", "seed", "n_evals", "objectives") if k not in meta]
    if missing:
        raise InputError(f"{where}: field {missing[0]!r} is missing.")

    def integer(key):
        v = meta[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(f"{where}: '{key}' must be a non-negative integer; got {v!r}.")
        return v

    method = meta["method"]
    if not isinstance(method, str) or not method:
        raise InputError(f"{where}: 'method' must be a non-empty string; got {method!r}.")
    objectives = meta["objectives"]
    if (not isinstance(objectives, list) or not objectives
            or not all(isinstance(o, str) and o for o in objectives)):
        raise InputError(f"{where}: 'objectives' must be a non-empty list of names; got {objectives!r}.")
    if len(set(objectives)) != len(objectives):
        raise InputError(f"{where}: 'objectives' must be unique; got {objectives!r}.")
    info = meta.get("info", {})
    if not isinstance(info, dict):
        raise InputError(f"{where}: 'info' must be a JSON object; got {info!r}.")
    u = info.get("uncertainty")  # read for display (the report, the plots): its types checked here
    if u is not None:
        if not isinstance(u, dict):
            raise InputError(f"{where}: 'info.uncertainty' must be a JSON object; got {type(u).__name__}.")
        for key, low, high in (("level", 0, 1), ("p_correct_selection", 0, 1), ("expected_false_in", 0, None),
                               ("expected_false_out", 0, None), ("resamples", 0, None)):
            v = u.get(key)
            if v is None or (isinstance(v, float) and v != v):  # absent, or NaN (nothing to estimate)
                continue
            if (isinstance(v, bool) or not isinstance(v, int | float) or not low <= v < float("inf")
                    or (high is not None and v > high)):
                bound = f"in [{low}, {high}]" if high is not None else f"a number >= {low}"
                raise InputError(f"{where}: 'info.uncertainty.{key}' must be {bound}; got "
                                 f"{v if isinstance(v, int | float) and not isinstance(v, bool) else type(v).__name__}.")
        listed = u.get("uncertain")
        if listed is not None and (not isinstance(listed, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in listed)):
            raise InputError(f"{where}: 'info.uncertainty.uncertain' must be a list of design ids "
                             "(integers >= 0).")
    return {"method": method, "seed": integer("seed"), "n_evals": integer("n_evals"),
            "objectives": tuple(objectives), "info": dict(info)}


def _check_recorded(path: Path, meta: dict, meta_path: Path) -> None:
    """The bytes of ``path`` are those whose sha256 the manifest ``result.json`` recorded in
    ``files`` when the set was written (:meth:`Result._manifest_text`); a result without
    ``files`` (written before it was recorded, or by hand) is not checked.  (A set replaced in
    place while it is read changes the files' inodes: :meth:`Result.read_csv` reads it again.)"""
    files = meta.get("files")
    if files is None:
        return
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise InputError(f"'{meta_path}': malformed mopt result: 'files' must map file names to sha256 digests.")
    recorded = files.get(path.name)
    if recorded is not None and _sha256(path) != recorded.lower():
        raise InputError(f"'{path}' does not match the sha256 recorded in '{meta_path}' (edited after it "
                         "was written?).")


def _check_rows(text: str, path: Path) -> None:
    """Every line of ``evaluations.csv`` has as many fields as its header (pandas would pad a short
    row with NaN): a ragged row is refused, naming its line. Runs of empty lines (which the check
    skips) are collapsed first, in C, so that a file padded with millions of them is checked in
    time of its rows (issue #34: 100 MiB of blank lines took 9 s here); the line of a refusal is
    then found on the file as it is."""
    compact = _EMPTY_LINES.sub("\n", text)
    if len(compact) == len(text):
        return _scan_rows(text, path)
    try:
        _scan_rows(compact, path)
    except InputError:
        _scan_rows(text, path)  # the same refusal, naming the line in the file
        raise


_EMPTY_LINES = re.compile(r"\n\n+")  # runs of \n only (a pattern with \r? backtracks: 25 s on 100 MiB)


def _scan_rows(text: str, path: Path) -> None:
    """:func:`_check_rows` on ``text`` as it is, line by line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    width = None
    try:
        for fields in reader:
            if not fields:
                continue
            if width is None:
                width = len(fields)
            elif len(fields) != width:
                raise InputError(f"'{path}', line {reader.line_num}: malformed mopt result evaluations: "
                                 f"expected {width} fields (as the header); got {len(fields)}.")
    except csv.Error as exc:
        raise InputError(f"'{path}', line {reader.line_num}: malformed mopt result evaluations "
                         f"({exc}).") from None


def _check_evaluations(ev: pd.DataFrame, objectives: tuple[str, ...], path: Path) -> None:
    """``evaluations.csv`` must have an integer ``design`` column (integral floats are converted in
    place) without repeats, a numeric column per objective and per ``<objective>_se``, and an
    integer ``n_reps`` (when present)."""
    where = f"'{path}': malformed mopt result evaluations"
    for name in ("design", *objectives):
        if name not in ev.columns:
            raise InputError(f"{where}: column {name!r} is missing.")
    if len(ev) == 0:
        return
    design = ev["design"]
    if pd.api.types.is_integer_dtype(design):
        bad = (design < 0).to_numpy()
    else:
        num = pd.to_numeric(design, errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(num) | (num < 0) | (num >= 2.0**62) | (num != np.floor(num))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"{where}: column 'design' must hold non-negative integers; got {_py(design.iloc[k])!r} "
                         f"at line {k + 2}.")
    if not pd.api.types.is_integer_dtype(design):
        ev["design"] = num.astype(np.int64)  # integral floats such as 3.0
    repeated = ev["design"].duplicated(keep="first").to_numpy()
    if repeated.any():
        k = int(np.flatnonzero(repeated)[0])
        first = int(np.flatnonzero((ev["design"] == ev["design"].iloc[k]).to_numpy())[0])
        raise InputError(f"{where}: design {_py(ev['design'].iloc[k])} appears twice, at lines {first + 2} "
                         f"and {k + 2}.")
    for name in ev.columns:  # a parameter column of numbers with a stray word: a hand edit gone wrong
        col = ev[name]
        if name in objectives or pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        num = pd.to_numeric(col, errors="coerce")
        stray = (num.isna() & col.notna()).to_numpy()
        if num.notna().any() and stray.any():
            k = int(np.flatnonzero(stray)[0])
            raise InputError(f"{where}: column {name!r} holds numbers and text; got {_py(col.iloc[k])!r} at "
                             f"line {k + 2}.")
    numeric = [*objectives, *(c for c in (f"{o}_se" for o in objectives) if c in ev.columns)]
    for name in [*numeric, *(["n_reps"] if "n_reps" in ev.columns else [])]:
        col = ev[name]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            bad = pd.to_numeric(col, errors="coerce").isna() & col.notna()
            k = int(np.flatnonzero(bad.to_numpy())[0]) if bad.any() else 0
            raise InputError(f"{where}: column {name!r} must be numeric; got {_py(col.iloc[k])!r} at line {k + 2}.")


def _same_info(a: dict, b: dict) -> bool:
    """``a == b`` for ``info`` dicts, also when they hold arrays (compared by their JSON text)."""
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _py(value):
    """A numpy scalar as the Python value (for messages)."""
    return value.item() if isinstance(value, np.generic) else value
