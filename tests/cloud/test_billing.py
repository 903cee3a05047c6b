"""Hourly billing shared by the cloud simulator and KOALA-C (mopt/cloud/billing.py): hand cases."""

from __future__ import annotations

import pytest

from mopt.cloud.billing import HOUR, billed_hours, paid_until, release_due


@pytest.mark.parametrize("t,lease,hours", [
    (100.0, 100.0, 1.0),     # just leased: the first hour is charged at once
    (3700.0, 100.0, 1.0),    # exactly one hour later: still one started hour
    (3700.5, 100.0, 2.0),    # half a second into the second hour
    (7300.0, 100.0, 2.0),
    (50.0, 100.0, 1.0),      # before the lease (never asked by the engines): at least one hour
])  # fmt: skip
def test_billed_hours_and_boundary(t, lease, hours):
    assert billed_hours(t, lease) == hours
    assert paid_until(t, lease) == lease + hours * HOUR


def test_release_window_of_each_simulator():
    """A VM leased at 0, tick step 30. Its paid hour ends at 3600.
    t = 3560: 40 s to go, more than a tick -> neither releases.
    t = 3570: 30 s to go, exactly one tick -> KOALA-C releases (<= step), the cloud simulator does
              not (the hour must end in [t, t + 30) = [3570, 3600)).
    t = 3580: 20 s to go -> both.
    t = 3600: on the boundary (one started hour, ends at 3600 in [3600, 3630)) -> both."""
    cases = {3560.0: (False, False), 3570.0: (True, False), 3580.0: (True, True), 3600.0: (True, True)}
    for t, (koala, cloud) in cases.items():
        assert release_due(t, 0.0, 30.0, True) is koala, t
        assert release_due(t, 0.0, 30.0, False) is cloud, t
    # past the boundary the next hour is started: 3601 s -> paid until 7200, far away
    assert not release_due(3601.0, 0.0, 30.0, True) and not release_due(3601.0, 0.0, 30.0, False)


def test_engines_use_the_shared_rules():
    """Both compiled engines and the cloud policies take the hour from this module (one rule)."""
    from mopt.cloud import engine, policies
    from mopt.koala import engine as koala_engine

    assert engine.HOUR is policies.HOUR is HOUR
    assert koala_engine.release_due is release_due and engine.release_due is release_due
    assert policies.paid_left(100.0, 3000.0) == paid_until(3000.0, 100.0) - 3000.0 == 700.0
