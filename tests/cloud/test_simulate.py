"""Hand-computed cloud simulations (spec §2-5), each derived in its comment.

Defaults unless stated: 20 s ticks, boot delay 120 s, cap 256, actual runtimes. A VM leased at
tick t is usable from t + boot; an idle VM is released at the tick its paid hour ends.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import Policy, simulate
from mopt.core.errors import InputError


def trace(*rows, req=None, user=None):
    """rows of (submit, run, n)."""
    df = pd.DataFrame(rows, columns=["submit_time", "run_time", "n_procs"])
    if req is not None:
        df["req_time"] = req
    if user is not None:
        df["user_id"] = user
    return df


def starts(run):
    return run.jobs["start"].tolist()


def test_spec_one_job_check():
    # spec §5: 4 VMs leased at tick 0, ready at 120: the job runs 120-720 (wait 120,
    # BSD 720/600 = 1.2); the VMs idle from 720 are released at the 3600 s tick, 1 hour each:
    # R_J = 4*600 = 2400, R_V = 4*3600 = 14400, U = 100 * (2400/14400) / 1.2 = 13.89
    run = simulate(trace((0, 600, 4)), "ODA-FCFS-FirstFit")
    row = run.jobs.iloc[0]
    assert (row["start"], row["end"], row["wait"], row["response"]) == (120, 720, 120, 720)
    assert row["bsd"] == pytest.approx(1.2)
    s = run.summary
    assert (s["R_J"], s["R_V"], s["vm_hours"]) == (2400, 14400, 4)
    assert s["utilisation"] == pytest.approx(1 / 6)
    assert s["utility"] == pytest.approx(13.888888, rel=1e-6)
    # α = 0: slowdown only, 100/1.2; β = 0: cost only, 100/6
    assert simulate(trace((0, 600, 4)), "ODA-FCFS-FirstFit", alpha=0).summary["utility"] == \
        pytest.approx(100 / 1.2)
    assert simulate(trace((0, 600, 4)), "ODA-FCFS-FirstFit", beta=0).summary["utility"] == \
        pytest.approx(100 / 6)


def test_job_submitted_between_ticks():
    # submitted at 5: first seen at the 20 s tick, leased then, ready at 140, starts at 140
    # (wait 135, BSD (135 + 100)/100 = 2.35); released at 20 + 3600 = 3620: one hour
    run = simulate(trace((5, 100, 1)), "ODA-FCFS-FirstFit")
    assert starts(run) == [140]
    assert run.jobs["bsd"].iloc[0] == pytest.approx(2.35)
    assert run.summary["R_V"] == 3600


def test_head_of_line_blocking():
    # cap 4; A (3 VMs, 1000 s), B (4 VMs, 100 s), C (1 VM, 50 s), all at 0. Tick 0: ODA leases
    # min(8, 4) = 4. At 120 A starts on 3; head B needs 4 > 1 idle, so C waits although one VM
    # is idle (no backfilling). A ends 1120: B runs 1120-1220, then C 1220-1270. The 4 VMs
    # leased at 0 are released at 3600: R_V = 4 h.
    run = simulate(trace((0, 1000, 3), (0, 100, 4), (0, 50, 1)), "ODA-FCFS-FirstFit", max_vms=4)
    assert starts(run) == [120, 1120, 1220]
    assert run.summary["R_V"] == 4 * 3600


def test_two_priorities_order_the_same_jobs_differently():
    # one VM (cap 1); A runs 1000 s, B 100 s, both submitted at 0. FCFS: equal waits, tie by
    # submit then id: A at 120 (ends 1120), B at 1120. SJF: B first (-100 > -1000) at 120, A at
    # 220. LXF at 120: A (120+1000)/1000 = 1.12 < B (120+100)/100 = 2.2: B first, as SJF.
    jobs = trace((0, 1000, 1), (0, 100, 1))
    assert starts(simulate(jobs, "ODA-FCFS-FirstFit", max_vms=1)) == [120, 1120]
    assert starts(simulate(jobs, "ODA-SJF-FirstFit", max_vms=1)) == [220, 120]
    assert starts(simulate(jobs, "ODA-LXF-FirstFit", max_vms=1)) == [220, 120]


def test_odb_counts_busy_vms_as_supply():
    # A (2 VMs, 10000 s) at 0, B (2 VMs, 100 s) at 200.
    # ODA: at 200 supply = idle + booting = 0 < 2: leases 2 more, B runs 320-420. A's VMs
    # (leased 0, idle from 10120) go at 10800 = 3 h each; B's (leased 200) at 3800 = 1 h each:
    # 8 VM-hours. ODB: at 200 supply = all leased = 2 >= 2: no lease; B waits for A's VMs and
    # runs 10120-10220; both VMs released at 10800: 6 VM-hours.
    jobs = trace((0, 10000, 2), (200, 100, 2))
    oda = simulate(jobs, "ODA-FCFS-FirstFit")
    odb = simulate(jobs, "ODB-FCFS-FirstFit")
    assert starts(oda) == [120, 320] and oda.summary["vm_hours"] == 8
    assert starts(odb) == [120, 10120] and odb.summary["vm_hours"] == 6


def test_ode_guard_and_overprovisioning():
    # a wide, short head: 4 VMs for 10 s. ceil(4*10/3600) = 1 VM would never fit the job (a
    # deadlock taken literally); the guard raises the target to n_head = 4: start at 120, 4 h.
    run = simulate(trace((0, 10, 4)), "ODE-FCFS-FirstFit")
    assert starts(run) == [120] and run.summary["vm_hours"] == 4
    # two 1-VM jobs of 7200 s: ceil(2*7200/3600) = 4 VMs leased for 2 jobs. Both run 120-7320;
    # the two idle VMs go at 3600 (1 h each), the busy ones at 10800 (3 h each): 8 VM-hours.
    run = simulate(trace((0, 7200, 1), (0, 7200, 1)), "ODE-FCFS-FirstFit")
    assert starts(run) == [120, 120] and run.summary["vm_hours"] == 8


def test_bestfit_and_worstfit_choose_different_vms():
    # A (1 VM, 2000 s) at 0 runs on V1 (leased 0) 120-2120. B (1 VM, 2000 s) at 2000: V1 busy,
    # so V2 is leased at 2000, ready 2120. At 2120 both are idle: paid time left r_V1 = 3600 -
    # 2120 = 1480, r_V2 = 5600 - 2120 = 3480; leftovers (r - 2000) mod 3600: V1 3080, V2 1480.
    # BestFit takes V2: B ends 4120 inside V2's first hour; V1 goes at 3600, V2 at 5600: 2 h.
    # WorstFit (and FirstFit, lease order) take V1: B runs over V1's boundary, V1 goes at 7200
    # (2 h) and the idle V2 at 5600 (1 h): 3 h.
    jobs = trace((0, 2000, 1), (2000, 2000, 1))
    best = simulate(jobs, "ODA-FCFS-BestFit")
    worst = simulate(jobs, "ODA-FCFS-WorstFit")
    first = simulate(jobs, "ODA-FCFS-FirstFit")
    assert starts(best) == starts(worst) == [120, 2120]
    assert best.summary["vm_hours"] == 2
    assert worst.summary["vm_hours"] == first.summary["vm_hours"] == 3


def test_binpack_worstfit_takes_the_vm_the_job_fits_on():
    # The case above under vm_key="binpack" (d = r - t, signed): d_V1 = 1480 - 2000 = -520 (B
    # does not fit in V1's paid time), d_V2 = 3480 - 2000 = 1480. WorstFit now takes V2 (largest
    # d), like BestFit (the only VM B fits on): 2 h; FirstFit is unchanged: 3 h.
    jobs = trace((0, 2000, 1), (2000, 2000, 1))
    runs = {v: simulate(jobs, f"ODA-FCFS-{v}", vm_key="binpack")
            for v in ("BestFit", "WorstFit", "FirstFit")}
    assert all(starts(r) == [120, 2120] for r in runs.values())
    assert runs["WorstFit"].summary["vm_hours"] == runs["BestFit"].summary["vm_hours"] == 2
    assert runs["FirstFit"].summary["vm_hours"] == 3


def test_vm_keys_by_hand():
    # policies.vm_key's (tier, key) at now = 0 for a VM leased at `lease` (paid time left
    # r = lease + 3600 - 0 for lease in (-3600, 0]) and a job of t seconds
    from mopt.cloud import policies as P

    def key(selection, vm_key, r, t):
        return P.vm_key(P.vm_code(selection, vm_key), r - 3600.0, 0.0, t)

    # r = 3000, t = 2400: fits (d = 600); mod ℓ = 600
    assert key(P.BESTFIT, "mod", 3000, 2400) == (0, 600.0)
    assert key(P.BESTFIT, "binpack", 3000, 2400) == (0, 600.0)
    assert key(P.WORSTFIT, "binpack", 3000, 2400) == (0, -600.0)
    # r = 1800, t = 2400: does not fit (d = -600); ℓ = 3000. BestFit's fallback tier is ℓ
    # (spec); WorstFit keeps the signed d (ours)
    assert key(P.BESTFIT, "mod", 1800, 2400) == (0, 3000.0)
    assert key(P.WORSTFIT, "mod", 1800, 2400) == (0, -3000.0)
    assert key(P.BESTFIT, "binpack", 1800, 2400) == (1, 3000.0)
    assert key(P.WORSTFIT, "binpack", 1800, 2400) == (0, 600.0)
    # ours, where no VM fits: t = 3700, r = 50 (d = -3650, ℓ = 3550) and r = 3000 (d = -700,
    # ℓ = 2900). WorstFit under mod takes the first (largest ℓ), under binpack the second (the
    # most paid time left, largest d)
    assert key(P.WORSTFIT, "mod", 50, 3700) < key(P.WORSTFIT, "mod", 3000, 3700)
    assert key(P.WORSTFIT, "binpack", 3000, 3700) < key(P.WORSTFIT, "binpack", 50, 3700)
    # a VM at the end of its paid hour (r = 0) and one leased now with no boot delay (r = 3600),
    # t = 3600: ℓ ties at 0 (mod: lease order decides); binpack: the job fits the fresh one (d = 0)
    assert key(P.BESTFIT, "mod", 0, 3600) == key(P.BESTFIT, "mod", 3600, 3600) == (0, 0.0)
    assert key(P.BESTFIT, "binpack", 3600, 3600) == (0, 0.0)
    assert key(P.BESTFIT, "binpack", 0, 3600) == (1, 0.0)
    # FirstFit is the same under both keys: lease order
    assert P.in_lease_order(P.vm_code(P.FIRSTFIT, "binpack")) and P.in_lease_order(P.FIRSTFIT)
    assert not P.in_lease_order(P.vm_code(P.BESTFIT, "binpack"))


def test_binpack_bestfit_orders_vms_as_the_mod_key_does():
    # With 0 <= r <= 3600 and t > 0, a VM the job does not fit has ℓ = d + 3600·k >= 3600 - t >=
    # every fitting VM's d = ℓ, so BestFit's two tiers give ℓ's order: the keys differ in BestFit
    # only where ℓ ties exactly (r = 0 against r = 3600, above) and otherwise in WorstFit.
    from mopt.cloud import policies as P

    rng = np.random.default_rng(3)
    for _ in range(200):
        r = rng.integers(1, 3600, 6).astype(float)
        t = float(rng.integers(1, 9000))
        leases = r - 3600.0
        mod = [P.vm_key(P.vm_code(P.BESTFIT, "mod"), x, 0.0, t) for x in leases]
        binpack = [P.vm_key(P.vm_code(P.BESTFIT, "binpack"), x, 0.0, t) for x in leases]
        assert sorted(range(6), key=lambda i: mod[i]) == sorted(range(6), key=lambda i: binpack[i])


def test_vm_kept_over_an_hour_boundary():
    # A (3000 s) at 0 runs 120-3120 on V1 (leased 0). B (1000 s) at 3500: V1 is idle (its hour
    # ends at 3600), so ODA leases nothing and B starts at once on V1, running 3500-4500 over the
    # boundary: V1 is kept and released at 7200, charged 2 h; one VM in all.
    run = simulate(trace((0, 3000, 1), (3500, 1000, 1)), "ODA-FCFS-FirstFit")
    assert starts(run) == [120, 3500]
    assert run.summary["R_V"] == 7200


def test_startup_never_releases():
    # A (2 VMs, 100 s) at 0, B (1 VM, 100 s) at 10000. StartUp keeps both VMs: B starts at once
    # at 10000 and ends 10100, the end of the workload, when each VM is charged up to its next
    # boundary: ceil(10100/3600) = 3 h each, 6 h. ODA releases them at 3600 (2 h), leases one at
    # 10000 for B (runs 10120-10220), charged 1 h: 3 h.
    jobs = trace((0, 100, 2), (10000, 100, 1))
    up = simulate(jobs, "StartUp-FCFS-FirstFit")
    oda = simulate(jobs, "ODA-FCFS-FirstFit")
    assert starts(up) == [120, 10000] and up.summary["vm_hours"] == 6
    assert starts(oda) == [120, 10120] and oda.summary["vm_hours"] == 3


def test_odx_and_odw_wait_for_their_thresholds():
    # ODX leases for a job once (q + max(t, 10)) / max(t, 10) > 2, i.e. q > 100 for a 100 s job:
    # at the 120 s tick; ready 240. ODW waits for q > W = 600 (5 x 120 s): tick 620, ready 740.
    jobs = trace((0, 100, 1))
    assert starts(simulate(jobs, "ODX-FCFS-FirstFit")) == [240]
    assert starts(simulate(jobs, "ODW-FCFS-FirstFit")) == [740]
    # JSSPP's 4-minute boot: W = 1200 s
    assert starts(simulate(jobs, "ODW-FCFS-FirstFit", boot_delay=240)) == [1460]


def test_predicted_runtimes_from_a_users_history():
    # one VM, boot 0, SJF. User 0: j0 (100 s), j1 (300 s) at 0, j3 (4000 s) at 10; user 1: j2
    # (50 s) at 10; every req_time 5000 except j2's 2000.
    # t=0: no history, predictions = req_time: tie, j0 first (0-100).
    # t=100: user 0's finished jobs {j0}: j1 and j3 predicted 100, j2 2000: j1 (earlier) 100-400.
    # t=400: {j0, j1}: mean(100, 300) = 200 for j3 < 2000: j3 400-4400, then j2 at 4400.
    # With actual runtimes SJF runs j2 (50 s) at 100, j1 at 160 and j3 at 460.
    jobs = trace((0, 100, 1), (0, 300, 1), (10, 50, 1), (10, 4000, 1),
                 req=[5000, 5000, 2000, 5000], user=[0, 0, 1, 0])
    kw = {"max_vms": 1, "boot_delay": 0}
    assert starts(simulate(jobs, "ODA-SJF-FirstFit", runtime="predicted", **kw)) == \
        [0, 100, 4400, 400]
    assert starts(simulate(jobs, "ODA-SJF-FirstFit", **kw)) == [0, 160, 100, 460]


def test_prediction_capped_at_req_time():
    # user 0's finished job ran 3000 s, but the next job asks only 500 s: prediction
    # min(3000, 500) = 500 < the other user's 1000 s (no history: its req_time), so under SJF it
    # goes first at 3000 (a: 0-3000; b and c queued from 10).
    jobs = trace((0, 3000, 1), (10, 900, 1), (10, 400, 1), req=[4000, 1000, 500],
                 user=[0, 1, 0])
    kw = {"max_vms": 1, "boot_delay": 0}
    assert starts(simulate(jobs, "ODA-SJF-FirstFit", runtime="predicted", **kw)) == \
        [0, 3400, 3000]


def test_user_estimates_and_missing_ones():
    # SJF on user estimates: b asks 100 s (runs 900), c asks nothing (-1: its actual 400 s is
    # used, counted in missing_req_time): b first at 3000, c at 3900.
    jobs = trace((0, 3000, 1), (10, 900, 1), (10, 400, 1), req=[4000, 100, -1])
    run = simulate(jobs, "ODA-SJF-FirstFit", runtime="user", max_vms=1, boot_delay=0)
    assert starts(run) == [0, 3000, 3900]
    assert run.summary["missing_req_time"] == 1


def test_odg_grows_geometrically():
    # eight 1-VM jobs at 0 (run 1000 s each): demand 8 exceeds idle + booting at ticks 0, 20,
    # 40, 60 (0, 1, 3, 7 VMs), so ODG leases 1, 2, 4 and then 8 (the step, not the gap: the
    # geometric overshoot); ready at 120, 140, 160, 180: 1 + 2 + 4 + 1 jobs start. 15 VMs, each
    # released at its first hour boundary: 15 VM-hours (ODA leases just 8).
    jobs = trace(*[(0, 1000, 1)] * 8)
    run = simulate(jobs, "ODG-FCFS-FirstFit")
    assert starts(run) == [120, 140, 140, 160, 160, 160, 160, 180]
    assert run.summary["vm_hours"] == 15
    assert simulate(jobs, "ODA-FCFS-FirstFit").summary["vm_hours"] == 8


def test_same_inputs_identical_results():
    rng = np.random.default_rng(3)
    jobs = trace(*zip(np.sort(rng.integers(0, 20000, 60)), rng.integers(1, 9000, 60),
                      rng.integers(1, 9, 60), strict=True))
    for policy in ("ODX-UNICEF-BestFit", "ODG-WFP3-WorstFit"):
        a = simulate(jobs, policy, max_vms=16)
        b = simulate(jobs, Policy.parse(policy), max_vms=16)
        pd.testing.assert_frame_equal(a.jobs, b.jobs)
        assert a.summary == b.summary


def test_wider_than_cap_refused_or_dropped():
    jobs = trace((0, 100, 300), (0, 100, 2), (5, 10, 257))
    with pytest.raises(InputError, match=r"2 jobs need more than 'max_vms'=256"):
        simulate(jobs, "ODA-FCFS-FirstFit")
    run = simulate(jobs, "ODA-FCFS-FirstFit", drop_wide=True)
    assert run.summary["dropped"] == 2 and run.summary["n_jobs"] == 1


def test_vm_key_is_matched_case_insensitively():
    # issue #36: names are accepted in any case and mapped to their canonical spelling
    jobs = trace((0, 10, 1), (5, 700, 3))
    same = simulate(jobs, "ODA-FCFS-BestFit", vm_key="binpack").summary
    assert simulate(jobs, "ODA-FCFS-BestFit", vm_key="Binpack").summary == same


@pytest.mark.parametrize("kwargs, match", [
    ({"policy": "ODQ-FCFS-FirstFit"}, "provisioning policy 'ODQ'"),
    ({"policy": "ODA-FCFS"}, "'policy' must read"),
    ({"policy": "ODA-XYZ-FirstFit"}, "job-selection policy 'XYZ'"),
    ({"boot_delay": -1}, "'boot_delay'"),
    ({"max_vms": -3}, "'max_vms'"),
    ({"alpha": -0.5}, "'alpha'"),
    ({"beta": -1}, "'beta'"),
    ({"runtime": "oracle"}, "'runtime'"),
    ({"step": 0}, "'step'"),
    ({"vm_key": 3}, r"'vm_key' must be one of 'mod', 'binpack'; got 3\."),
    ({"vm_key": "foo"}, r"'vm_key' must be one of 'mod', 'binpack'; got 'foo'\."),
    ({"vm_key": "binpak"}, r"'vm_key' must be one of 'mod', 'binpack'; got 'binpak'; did you mean 'binpack'\?"),
    # a portfolio is refused with the name of the function that runs it
    ({"policy": "sc13"}, r"portfolio 'sc13': run a portfolio with mopt.cloud.simulate_portfolio"),
    ({"policy": ["ODA-FCFS-FirstFit", "ODB-FCFS-FirstFit"]},
     r"portfolio a list of 2 policies: run a portfolio with mopt.cloud.simulate_portfolio"),
])
def test_bad_input(kwargs, match):
    args = {"policy": "ODA-FCFS-FirstFit", **kwargs}
    with pytest.raises(InputError, match=match):
        simulate(trace((0, 10, 1)), **args)


def test_empty_or_unclean_trace():
    with pytest.raises(InputError, match="empty"):
        simulate(trace(), "ODA-FCFS-FirstFit")
    with pytest.raises(InputError, match="run_time <= 0"):
        simulate(trace((0, -1, 1)), "ODA-FCFS-FirstFit")
    # times where float64 cannot tell 20 s ticks apart would never finish: refused
    with pytest.raises(InputError, match="beyond 1e\\+12 s"):
        simulate(trace((0, 10, 1), (1e300, 10, 1)), "ODA-FCFS-FirstFit")
    with pytest.raises(InputError, match="'boot_delay'"):
        simulate(trace((0, 10, 1)), "ODA-FCFS-FirstFit", boot_delay=1e300)
    with pytest.raises(InputError, match="no column 'n_procs'"):
        simulate(pd.DataFrame({"submit_time": [0], "run_time": [5]}), "ODA-FCFS-FirstFit")


def test_the_simulate_function_survives_importing_its_submodule():
    # `from mopt.cloud.simulate import start_run` first binds the submodule mopt.cloud.simulate
    # as the package's attribute `simulate`; `from mopt.cloud import simulate` must still give
    # the function (a test ordering once made it the module: "'module' object is not callable")
    import subprocess
    import sys

    code = ("from mopt.cloud.simulate import start_run\nfrom mopt.cloud import simulate\n"
            "import mopt.cloud\nprint(callable(simulate), mopt.cloud.simulate is simulate, "
            "simulate.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "mopt.cloud.simulate"]
