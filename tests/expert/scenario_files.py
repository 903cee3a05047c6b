"""Small ExPERT scenario files for the fuzz tests (tests/expert, tests/cli): written from sections of
TOML literals; for every key, a strategy of values that it must refuse."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import strategies as st

import mopt
from tests.strategies import (
    NEGATIVE,
    NON_FINITE,
    NON_INTEGRAL,
    NON_POSITIVE,
    SAFE_TEXT,
    WORDS,
    WRONG_TYPE,
    WRONG_TYPE_NOT_STR,
    bad_count,
)

_counter = itertools.count()


def base_sections() -> dict:
    """A small valid scenario (reference environment, 3 x 2 x 2 x 2 grid), as TOML literals."""
    return {
        "environment": {
            "n_tasks": "150",
            "n_unreliable": "50",
            "t_ur": "2066",
            "t_r": "2066",
            "c_ur": '"1/3600"',
            "c_r": '"34/3600"',
            "mr_max": "0.1",
            "charging_period_r": "1",
        },
        "turnaround": {
            "kind": '"shifted_lognormal"',
            "mean": "2066",
            "shift": "1000",
            "sigma": "0.5",
            "reliability": "0.827",
        },
        "grid": {"N": '[0, 1, "inf"]', "T": "[0, 2066]", "D": "[2066, 4132]", "Mr": "[0.02, 0.1]"},
        "run": {"method": '"exhaustive"', "n_reps": "2", "seed": "1", "budget": "100"},
    }


def render(sections: dict, top: tuple[str, ...] = ()) -> str:
    lines = list(top)
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(workdir: Path, text: str | bytes, stem: str = "scenario", suffix: str = ".toml") -> Path:
    path = workdir / f"{stem}_{next(_counter)}{suffix}"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# key -> (section, strategy of bad values); every one of them names the key in its error
BAD_VALUES = {
    "n_tasks": ("environment", st.one_of(bad_count(1, 10**6), WRONG_TYPE)),
    "n_unreliable": ("environment", st.one_of(bad_count(1, 10**6), WRONG_TYPE)),
    # t_ur <= 250 s: no result is possible before 4·t_ur <= 1000 s = the shift of F_s
    "t_ur": (
        "environment",
        st.one_of(
            NON_POSITIVE,
            NON_FINITE,
            st.floats(1e-300, 250.0),
            st.floats(4.5e307, 1.7e308),
            WRONG_TYPE,
        ),
    ),
    "t_r": ("environment", st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE)),
    "c_ur": (
        "environment",
        st.one_of(
            NEGATIVE,
            NON_FINITE,
            WRONG_TYPE_NOT_STR,
            WORDS,
            st.integers(0, 99).map(lambda a: f"{a}/0"),
            st.just("1" + "0" * 400 + "/1"),
        ),
    ),
    "c_r": (
        "environment",
        st.one_of(
            NEGATIVE,
            NON_FINITE,
            WRONG_TYPE_NOT_STR,
            WORDS,
            st.integers(0, 99).map(lambda a: f"{a}/0.0"),
        ),
    ),
    "mr_max": (
        "environment",
        st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE, st.floats(0.0, 0.1, exclude_max=True)),
    ),  # < the grid's Mr
    "charging_period_r": ("environment", st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE)),
    "mean": (
        "turnaround",
        st.one_of(st.floats(-1e300, 1000.0), NON_FINITE, st.floats(1e308, 1.7e308), WRONG_TYPE),
    ),
    "shift": ("turnaround", st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE)),
    "sigma": (
        "turnaround",
        st.one_of(NON_POSITIVE, NON_FINITE, st.floats(40.0, 1e300), WRONG_TYPE),
    ),
    "reliability": (
        "turnaround",
        st.one_of(NEGATIVE, st.floats(1.0, 1e300, exclude_min=True), NON_FINITE, WRONG_TYPE),
    ),
    "kind": (
        "turnaround",
        st.one_of(
            SAFE_TEXT.filter(lambda s: s not in ("shifted_lognormal", "instances")),
            WRONG_TYPE_NOT_STR,
        ),
    ),
    "preset": (
        "grid",
        st.one_of(
            SAFE_TEXT.filter(lambda s: s not in ("paper", "high_resolution")), WRONG_TYPE_NOT_STR
        ),
    ),
    "method": (
        "run",
        st.one_of(SAFE_TEXT.filter(lambda s: s not in mopt.METHODS), WRONG_TYPE_NOT_STR),
    ),
    "n_reps": ("run", st.one_of(bad_count(1, 2**62), WRONG_TYPE)),
    "seed": ("run", st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NON_FINITE, WRONG_TYPE)),
    "budget": ("run", st.one_of(bad_count(1), WRONG_TYPE)),
}

# section -> the keys it may hold
ALLOWED = {
    "environment": {
        "n_tasks",
        "n_unreliable",
        "t_ur",
        "t_r",
        "c_ur",
        "c_r",
        "mr_max",
        "charging_period_r",
    },
    "turnaround": {"kind", "mean", "shift", "sigma", "reliability"},
    "grid": {"preset", "N", "T", "D", "Mr"},
    "run": {"method", "n_reps", "seed", "budget"},
}
