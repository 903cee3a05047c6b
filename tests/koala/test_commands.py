"""``mopt koala`` (mopt/koala/commands.py): ``--blocking`` / ``--no-blocking`` and each policy's default."""

from __future__ import annotations

import pandas as pd
import pytest

from mopt.cli import main

#: four jobs submitted at 0 (SWF: job, submit, wait, runtime, processors, ..., user): three of 20
#: processors and 300 s, then one of 4 and 60 s (tests/koala/test_simulate.py computes them by hand)
SWF = "; MaxProcs: 64\n" + "".join(
    f"{k} 0 0 {run} {size} -1 -1 {size} {run} -1 1 1 1 -1 1 -1 -1 -1\n"
    for k, (size, run) in enumerate([(20, 300), (20, 300), (20, 300), (4, 60)], start=1))


@pytest.mark.parametrize("policy, option, slowdown", [
    # one chain C1 -> C2, limit 10 min: strict FCFS keeps the small job behind the two that wait
    ("TAGS-chain", None, (1 + 2 + 3 + 11) / 4),
    ("TAGS-chain", "--blocking", (1 + 2 + 3 + 11) / 4),
    ("TAGS-chain", "--no-blocking", (1 + 2 + 3 + 1) / 4),
    # FF on both clusters as one set: j2 fits nowhere at t=0; passing it, j3 starts at once
    ("FF", None, (1 + 1 + 2 + 1) / 4),
    ("FF", "--no-blocking", (1 + 1 + 2 + 1) / 4),
    ("FF", "--blocking", (1 + 1 + 2 + 6) / 4),
])
def test_blocking_option_and_defaults(policy, option, slowdown, tmp_path):
    trace = tmp_path / "four.swf"
    trace.write_text(SWF)
    out = tmp_path / "koala.csv"
    argv = ["koala", "--trace", str(trace), "--policy", policy, "--env", "multicluster", "--limits", "10",
            *([option] if option else []), "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert pd.read_csv(out)["slowdown"].tolist() == [pytest.approx(slowdown)]
