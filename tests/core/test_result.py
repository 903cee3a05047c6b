"""mopt.core.result: the front, decisions by utility, and CSV round trips."""

from __future__ import annotations

import dataclasses
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt import InputError, Result
from mopt.core import utility
from mopt.core.result import atomic_write, summarise


def make_result(makespan, cost, **extra_columns):
    n = len(makespan)
    ev = pd.DataFrame(
        {
            "design": np.arange(n, dtype=np.int64),
            **extra_columns,
            "makespan": np.asarray(makespan, dtype=float),
            "makespan_se": np.full(n, 0.5),
            "cost": np.asarray(cost, dtype=float),
            "cost_se": np.full(n, 0.01),
            "n_reps": np.full(n, 10, dtype=np.int64),
        }
    )
    return Result(
        method="exhaustive",
        seed=3,
        n_evals=10 * n,
        objectives=("makespan", "cost"),
        evaluations=ev,
        info={"budget": 10 * n},
    )


@pytest.fixture
def hand_result():
    #            design:   0     1     2     3     4     5
    return make_result(
        [100.0, 50.0, 60.0, 200.0, 50.0, 30.0],
        [1.0, 4.0, 2.0, 0.5, 4.0, 9.0],
        N=[0.0, 1.0, 2.0, math.inf, 3.0, 0.0],
    )


class TestFront:
    def test_hand_made(self, hand_result):
        # design 2 (60, 2) is not dominated: 1 (50, 4) is faster but dearer; 0 (100, 1) cheaper but slower.
        # designs 1 and 4 are duplicates (50, 4): both kept.  Nothing beats 5 on makespan or 3 on cost.
        front = hand_result.front
        assert sorted(front["design"].tolist()) == [0, 1, 2, 3, 4, 5]
        # sorted by makespan, then cost
        assert front["makespan"].tolist() == [30.0, 50.0, 50.0, 60.0, 100.0, 200.0]

    def test_equals_brute_force(self):
        rng = np.random.default_rng(4)
        m = rng.integers(1, 8, 40).astype(float)
        c = rng.integers(1, 8, 40).astype(float)
        res = make_result(m, c)
        brute = [
            i
            for i in range(40)
            if not any(
                m[j] <= m[i] and c[j] <= c[i] and (m[j] < m[i] or c[j] < c[i]) for j in range(40)
            )
        ]
        front = res.front
        assert sorted(front["design"].tolist()) == brute
        assert list(front.index) == list(range(len(brute)))
        pd.testing.assert_frame_equal(
            front.set_index("design").sort_index(), res.evaluations.set_index("design").loc[brute]
        )
        # ordered by (makespan, cost)
        assert front[["makespan", "cost"]].apply(tuple, axis=1).is_monotonic_increasing

    def test_nan_rows_are_never_on_the_front(self):
        res = make_result([1.0, math.nan, 2.0], [2.0, 0.1, 1.0])
        assert res.front["design"].tolist() == [0, 2]

    def test_empty(self):
        res = make_result([], [])
        assert len(res.front) == 0


class TestBest:
    def test_product_picks_the_hand_checked_row(self, hand_result):
        # makespan × cost: 100, 200, 120, 100, 200, 270 -> designs 0 and 3 tie at 100: lowest index wins
        best = hand_result.best(utility.product("makespan", "cost"))
        assert best["design"] == 0
        assert best["utility"] == 100.0
        assert best["makespan"] == 100.0 and best["cost"] == 1.0

    def test_minimize_and_weighted(self, hand_result):
        assert hand_result.best(utility.minimize("makespan"))["design"] == 5
        # makespan + 100·cost: 200, 450, 260, 250, 450, 930
        best = hand_result.best(utility.weighted(makespan=1, cost=100))
        assert (best["design"], best["utility"]) == (0, 200.0)

    def test_within_budget(self, hand_result):
        # cost <= 2: designs 0 (100), 2 (60), 3 (200) -> the fastest is design 2
        best = hand_result.best(utility.within_budget("cost", 2.0, then="makespan"))
        assert (best["design"], best["utility"]) == (2, 60.0)

    def test_by_deadline(self, hand_result):
        # makespan <= 60: designs 1 (4), 2 (2), 4 (4), 5 (9) -> the cheapest is design 2
        assert hand_result.best(utility.by_deadline("makespan", 60, then="cost"))["design"] == 2

    def test_a_plain_callable_works(self, hand_result):
        best = hand_result.best(lambda df: -df["cost"])
        assert (best["design"], best["utility"]) == (5, -9.0)

    def test_within_budget_with_no_feasible_row_raises(self, hand_result):
        with pytest.raises(InputError, match="no evaluated design satisfies"):
            hand_result.best(utility.within_budget("cost", 0.1, then="makespan"))

    def test_not_callable_raises(self, hand_result):
        with pytest.raises(TypeError, match="'utility'"):
            hand_result.best("product")

    def test_values_keep_their_types(self, hand_result):
        # a row of mixed columns is not upcast to float: the design index is an int
        best = hand_result.best(utility.product("makespan", "cost"))
        assert type(best["design"]) is int and type(best["n_reps"]) is int
        assert type(best["makespan"]) is float and best["N"] == 0.0
        assert best.name == 0  # the row's label in evaluations


class TestEquality:
    def test_equal_fields_are_equal_and_hash_alike(self):
        a, b = make_result([3.0, 1.0], [1.0, math.nan]), make_result([3.0, 1.0], [1.0, math.nan])
        assert a == b and not (a != b)  # NaN cells compare equal (same missing value)
        assert hash(a) == hash(b)
        assert len({a, b}) == 1 and {a: "x"}[b] == "x"
        assert a != "exhaustive"  # another type: not equal (no error)

    @pytest.mark.parametrize("change", [
        {"method": "ocba"}, {"seed": 4}, {"n_evals": 21}, {"objectives": ("cost", "makespan")},
        {"info": {"budget": 21}},
    ])
    def test_a_different_field_is_unequal(self, change):
        a = make_result([3.0, 1.0], [1.0, 2.0])
        assert a != dataclasses.replace(a, **change)

    def test_different_evaluations_are_unequal(self):
        a = make_result([3.0, 1.0], [1.0, 2.0])
        assert a != make_result([3.0, 1.5], [1.0, 2.0])  # one value
        assert a != make_result([3.0, 1.0], [1.0, 2.0], N=[1.0, 2.0])  # one more column
        # same numbers, another dtype of 'design' (float instead of int): not the same table
        ev = a.evaluations.assign(design=a.evaluations["design"].astype(float))
        assert a != dataclasses.replace(a, evaluations=ev)

    def test_info_with_arrays_compares(self):
        a = make_result([3.0], [1.0])
        x, y = dataclasses.replace(a, info={"v": np.arange(3)}), dataclasses.replace(a, info={"v": np.arange(3)})
        assert x == y and x != dataclasses.replace(a, info={"v": np.arange(4)})

    def test_a_solve_rerun_is_equal(self):
        import mopt

        problem = mopt.NormalProblem([[1, 5], [2, 2], [5, 1]])
        assert mopt.solve(problem, "exhaustive", seed=2) == mopt.solve(problem, "exhaustive", seed=2)
        assert mopt.solve(problem, "exhaustive", seed=2) != mopt.solve(problem, "exhaustive", seed=3)


class TestCsv:
    def test_round_trip(self, hand_result, tmp_path):
        d = tmp_path / "out"
        assert hand_result.to_csv(d) == d
        # written atomically: only the three files, no temporary files left behind
        assert sorted(os.listdir(d)) == ["evaluations.csv", "front.csv", "result.json"]
        back = Result.read_csv(d)
        pd.testing.assert_frame_equal(back.evaluations, hand_result.evaluations, check_exact=True)
        assert math.isinf(back.evaluations["N"].iloc[3])
        assert (back.method, back.seed, back.n_evals, back.objectives, back.info) == (
            "exhaustive",
            3,
            60,
            ("makespan", "cost"),
            {"budget": 60},
        )
        pd.testing.assert_frame_equal(
            pd.read_csv(d / "front.csv"), hand_result.front, check_exact=True
        )
        meta = json.loads((d / "result.json").read_text())
        assert meta["objectives"] == ["makespan", "cost"]

    def test_floats_survive_exactly(self, tmp_path):
        rng = np.random.default_rng(0)
        res = make_result(rng.random(20) * 1e4, rng.random(20) / 3)
        res.to_csv(tmp_path)
        back = Result.read_csv(tmp_path)
        assert np.array_equal(back.evaluations["makespan"], res.evaluations["makespan"])
        assert np.array_equal(back.evaluations["cost"], res.evaluations["cost"])

    def test_overwrite_leaves_no_temp_files(self, hand_result, tmp_path):
        hand_result.to_csv(tmp_path)
        make_result([1.0], [2.0]).to_csv(tmp_path)
        assert sorted(os.listdir(tmp_path)) == ["evaluations.csv", "front.csv", "result.json"]
        assert len(Result.read_csv(tmp_path).evaluations) == 1

    def test_missing_directory_names_the_file(self, tmp_path):
        with pytest.raises(InputError, match="evaluations.csv is missing"):
            Result.read_csv(tmp_path / "nowhere")

    def test_missing_metadata_names_the_file(self, hand_result, tmp_path):
        hand_result.to_csv(tmp_path)
        (tmp_path / "result.json").unlink()
        with pytest.raises(InputError, match="result.json is missing"):
            Result.read_csv(tmp_path)

    def test_malformed_metadata_names_the_file(self, hand_result, tmp_path):
        hand_result.to_csv(tmp_path)
        (tmp_path / "result.json").write_text("{not json")
        with pytest.raises(InputError, match="result.json"):
            Result.read_csv(tmp_path)

    def test_malformed_metadata_raises_input_error(self, hand_result, tmp_path):
        hand_result.to_csv(tmp_path)
        (tmp_path / "result.json").write_text(json.dumps({"method": "exhaustive"}))  # no seed, ...
        with pytest.raises(InputError, match="malformed mopt result"):
            Result.read_csv(tmp_path)


class TestAtomicWrite:
    def test_failed_write_leaves_nothing(self, tmp_path):
        target = tmp_path / "a.csv"
        target.write_text("old")

        def crash(path):
            with open(path, "w") as f:
                f.write("half")
            raise RuntimeError("disk on fire")

        with pytest.raises(RuntimeError, match="disk on fire"):
            atomic_write(target, crash)
        assert os.listdir(tmp_path) == ["a.csv"]
        assert target.read_text() == "old"

    def test_creates_parent_directories(self, tmp_path):
        target = tmp_path / "x" / "y" / "z.txt"
        atomic_write(target, lambda p: open(p, "w").write("ok"))
        assert target.read_text() == "ok"
        assert os.listdir(target.parent) == ["z.txt"]


def test_summarise_means_and_standard_errors():
    params = pd.DataFrame({"design": [4, 9], "x": [1, 2]})
    samples = [np.array([[1.0, 10.0], [3.0, 14.0]]), np.array([[5.0, 7.0]])]
    ev = summarise(params, samples, ("time", "cost"))
    # design 4: means 2 and 12; sd(ddof=1) of (1, 3) = sqrt(2), se = sqrt(2)/sqrt(2) = 1;
    # of (10, 14) sd = 2·sqrt(2), se = 2
    assert ev["time"].tolist() == [2.0, 5.0]
    assert ev["cost"].tolist() == [12.0, 7.0]
    assert ev["time_se"].iloc[0] == pytest.approx(1.0)
    assert ev["cost_se"].iloc[0] == pytest.approx(2.0)
    assert math.isnan(ev["time_se"].iloc[1])  # one replication: no standard error
    assert ev["n_reps"].tolist() == [2, 1]
    assert list(ev.columns) == ["design", "x", "time", "time_se", "cost", "cost_se", "n_reps"]


# -- read_csv validates what it reads ------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("method", 3, r"'method' must be a non-empty string; got 3"),
        ("method", "", r"'method' must be a non-empty string"),
        ("seed", 1.5, r"'seed' must be a non-negative integer; got 1\.5"),
        ("seed", True, r"'seed' must be a non-negative integer; got True"),
        ("seed", "3", r"'seed' must be a non-negative integer; got '3'"),
        ("n_evals", -1, r"'n_evals' must be a non-negative integer; got -1"),
        ("n_evals", 2.0, r"'n_evals' must be a non-negative integer; got 2\.0"),
        ("objectives", "makespan", r"'objectives' must be a non-empty list of names; got 'makespan'"),
        ("objectives", ["makespan", 3], r"'objectives' must be a non-empty list of names"),
        ("objectives", [], r"'objectives' must be a non-empty list of names"),
        ("objectives", ["cost", "cost"], r"'objectives' must be unique"),
        ("info", [1], r"'info' must be a JSON object"),
    ],
)
def test_read_csv_validates_the_metadata_fields(hand_result, tmp_path, field, value, match):
    hand_result.to_csv(tmp_path)
    meta = json.loads((tmp_path / "result.json").read_text())
    meta[field] = value
    (tmp_path / "result.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"result\.json'?: malformed mopt result: " + match):
        Result.read_csv(tmp_path)


def test_read_csv_metadata_must_be_an_object(hand_result, tmp_path):
    hand_result.to_csv(tmp_path)
    (tmp_path / "result.json").write_text("[1, 2]")
    with pytest.raises(InputError, match=r"result\.json'?: malformed mopt result: expected a JSON object"):
        Result.read_csv(tmp_path)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda ev: ev.drop(columns="cost"), r"column 'cost' is missing"),
        (lambda ev: ev.drop(columns="design"), r"column 'design' is missing"),
        (lambda ev: ev.assign(makespan=["fast"] * len(ev)), r"column 'makespan' must be numeric; got 'fast' at line 2"),
        (lambda ev: ev.assign(design=[0, 1, 2.5, 3, 4, 5]), r"column 'design' must hold non-negative integers; got 2\.5 at line 4"),
        (lambda ev: ev.assign(design=[0, 1, 2, -3, 4, 5]), r"column 'design' must hold non-negative integers; got -3 at line 5"),
    ],
)
def test_read_csv_validates_the_evaluations_columns(hand_result, tmp_path, change, match):
    hand_result.to_csv(tmp_path)
    change(hand_result.evaluations).to_csv(tmp_path / "evaluations.csv", index=False)
    with pytest.raises(InputError, match=r"evaluations\.csv'?: malformed mopt result evaluations: " + match):
        Result.read_csv(tmp_path)


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00 not text"])
def test_read_csv_unreadable_evaluations_name_the_file(hand_result, tmp_path, content):
    hand_result.to_csv(tmp_path)
    (tmp_path / "evaluations.csv").write_bytes(content)
    # not UTF-8: the line is named too
    with pytest.raises(InputError, match=r"evaluations\.csv'?(, line 1)?: (malformed|cannot read the) mopt "
                                         r"result evaluations"):
        Result.read_csv(tmp_path)


def test_read_csv_refuses_evaluations_edited_after_they_were_written(hand_result, tmp_path):
    """A well-formed edit (a makespan lowered by hand) passes every check of the content; the
    sha256 that the manifest result.json recorded refuses it, in one line naming both files."""
    hand_result.to_csv(tmp_path)
    path = tmp_path / "evaluations.csv"
    text = path.read_text()
    assert "\n3,inf,200.0," in text
    path.write_text(text.replace("\n3,inf,200.0,", "\n3,inf,20.0,", 1))  # well formed: only the digest tells
    with pytest.raises(InputError) as info:
        Result.read_csv(tmp_path)
    message = str(info.value)
    assert message == (f"'{path}' does not match the sha256 recorded in '{tmp_path / 'result.json'}' "
                       "(edited after it was written?).")
    assert "\n" not in message
    meta = json.loads((tmp_path / "result.json").read_text())
    del meta["files"]  # a result written before the digests were recorded (or by hand): read
    (tmp_path / "result.json").write_text(json.dumps(meta))
    assert Result.read_csv(tmp_path).evaluations["makespan"].tolist()[3] == 20.0


def test_read_csv_checks_the_digest_only_of_what_it_reads(hand_result, tmp_path):
    hand_result.to_csv(tmp_path)
    (tmp_path / "front.csv").write_text("not read\n")  # front.csv is derived, not read
    assert Result.read_csv(tmp_path) == hand_result
    meta = json.loads((tmp_path / "result.json").read_text())
    (tmp_path / "result.json").write_text(json.dumps({**meta, "files": ["evaluations.csv"]}))
    with pytest.raises(InputError, match=r"result\.json'?: malformed mopt result: 'files' must map file names"):
        Result.read_csv(tmp_path)


def test_read_csv_reads_one_set_while_to_csv_replaces_it_in_place(tmp_path):
    """to_csv renames new files into the directory (no swap of the directory): a read between
    the renames finds a new evaluations.csv under an old manifest (its digest differs) and reads
    again, instead of refusing the set as edited (with the directory's inode alone as its
    identity, about 1 read in 300 was).  (A read may still find no result.json between the
    renames, as :meth:`Result.to_csv` says: not counted here.)"""
    import threading

    first = make_result([1.0, 2.0], [2.0, 1.0])
    first.to_csv(tmp_path)
    stop, errors = threading.Event(), []

    def write():
        k = 0
        while not stop.is_set():
            k += 1
            make_result([float(k), 2.0 * k], [2.0, 1.0]).to_csv(tmp_path)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(1500):
            try:
                Result.read_csv(tmp_path)
            except InputError as exc:
                if "does not match the sha256" in str(exc):
                    errors.append(str(exc))
    finally:
        stop.set()
        writer.join()
    assert not errors, errors[:3]


def test_read_csv_round_trips_an_empty_result(tmp_path):
    empty = make_result([], [])
    empty.to_csv(tmp_path)
    back = Result.read_csv(tmp_path)
    assert len(back.evaluations) == 0 and len(back.front) == 0 and back.objectives == ("makespan", "cost")


def test_atomic_write_removes_temporary_files_of_killed_writers(tmp_path):
    """A writer killed mid-write leaves its temporary file; the next write of that file deletes it
    (the writer's pid is gone), and keeps those of writers still alive."""
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    orphan = tmp_path / f".front.csv.{int(dead.stdout)}.abc123.tmp"
    orphan.write_text("half a fi")
    live = tmp_path / f".front.csv.{os.getpid()}.def456.tmp"
    live.write_text("being written")
    atomic_write(tmp_path / "front.csv", lambda p: open(p, "w").write("whole"))
    assert (tmp_path / "front.csv").read_text() == "whole"
    assert not orphan.exists() and live.exists()


def test_best_breaks_ties_by_the_other_objectives():
    # designs 0 and 2 tie on makespan (10); design 2 is cheaper, so min(makespan) must not pick
    # the dominated design 0 (the first); design 1 is faster per cost but slower
    ev = pd.DataFrame({"design": [0, 1, 2], "makespan": [10.0, 12.0, 10.0], "cost": [3.0, 1.0, 2.0],
                       "n_reps": 5})
    result = mopt.Result("exhaustive", 1, 15, ("makespan", "cost"), ev)
    assert int(result.best(mopt.utility.minimize("makespan"))["design"]) == 2
    assert int(result.best(mopt.utility.minimize("cost"))["design"]) == 1
    # a tie on every objective: the lowest design index
    ev.loc[0, "cost"] = 2.0
    assert int(mopt.Result("exhaustive", 1, 15, ("makespan", "cost"), ev).best(
        mopt.utility.minimize("makespan"))["design"]) == 0
