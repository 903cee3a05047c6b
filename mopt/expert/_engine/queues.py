"""Event sources of the engine: a binary heap and ring buffers in arrays, initial event orders."""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import (
    _RELIABLE_RESULT,
    _UNRELIABLE_FAILURE,
    _UNRELIABLE_RESULT,
)


# ----------------------------------------------------------------------------- event heap
# A binary min-heap over (time, code) held in three arrays; code = kind << 32 | row, and ``pay``
# carries the cost of a result event (paid when it is popped).
@njit(cache=True, inline="always")
def _heap_push(h_time, h_code, h_pay, size, time, code, pay):
    pos = size
    while pos > 0:
        parent = (pos - 1) >> 1
        pt = h_time[parent]
        if pt < time or (pt == time and h_code[parent] < code):
            break
        h_time[pos] = pt
        h_code[pos] = h_code[parent]
        h_pay[pos] = h_pay[parent]
        pos = parent
    h_time[pos] = time
    h_code[pos] = code
    h_pay[pos] = pay
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(h_time, h_code, h_pay, size):
    """Remove the root (read it before calling); return the new size."""
    size -= 1
    if size == 0:
        return 0
    time = h_time[size]
    code = h_code[size]
    pay = h_pay[size]
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size:
            rt = h_time[right]
            ct = h_time[child]
            if rt < ct or (rt == ct and h_code[right] < h_code[child]):
                child = right
        ct = h_time[child]
        if time < ct or (time == ct and code < h_code[child]):
            break
        h_time[pos] = ct
        h_code[pos] = h_code[child]
        h_pay[pos] = h_pay[child]
        pos = child
    h_time[pos] = time
    h_code[pos] = code
    h_pay[pos] = pay
    return size


# ----------------------------------------------------------------------------- tail phase
@njit(cache=True, inline="always")
def _initial_kind(rem_success, rem_on_reliable, i):
    if rem_on_reliable[i]:
        return _RELIABLE_RESULT
    if rem_success[i]:
        return _UNRELIABLE_RESULT
    return _UNRELIABLE_FAILURE


@njit(cache=True)
def event_orders(rem_send, rem_end, rem_success, rem_on_reliable, n_remaining):
    """Orders of the rows of a tail state, computed once per state.

    Parameters
    ----------
    rem_send, rem_end, rem_success, rem_on_reliable : ndarray
        State arrays (see :func:`throughput_phase`).
    n_remaining : int
        Number of valid rows.

    Returns
    -------
    ndarray of int64, shape (2, n_remaining)
        Row 0: rows sorted by the end event of their running instance on (time, kind, row) --
        reliable results, then unreliable results, then failures at equal times, ties by row.
        Row 1: rows sorted by (send time, row), the order of their first timers.
    """
    orders = np.empty((2, n_remaining), np.int64)
    fill_event_orders(orders, rem_send, rem_end, rem_success, rem_on_reliable, n_remaining)
    return orders


@njit(cache=True)
def fill_event_orders(orders, rem_send, rem_end, rem_success, rem_on_reliable, n_remaining):
    """:func:`event_orders` written into ``orders[:, :n_remaining]`` (shape (2, >= n_remaining)).

    Insertion sorts, stable (ties by row): the rows number fewer than the unreliable machines
    and come nearly sorted.  (Plain loops: ``np.argsort`` and array-slice assignment would make
    the first compilation of the engine much slower.)
    """
    for a in range(n_remaining):
        orders[0, a] = a
        orders[1, a] = a
    for a in range(1, n_remaining):
        x = orders[1, a]
        b = a - 1
        while b >= 0 and rem_send[orders[1, b]] > rem_send[x]:
            orders[1, b + 1] = orders[1, b]
            b -= 1
        orders[1, b + 1] = x
    for a in range(1, n_remaining):
        x = orders[0, a]
        kx = _initial_kind(rem_success, rem_on_reliable, x)
        b = a - 1
        while b >= 0:
            y = orders[0, b]
            if rem_end[y] < rem_end[x]:
                break
            if rem_end[y] == rem_end[x]:
                ky = _initial_kind(rem_success, rem_on_reliable, y)
                if ky < kx or (ky == kx and y < x):
                    break
            orders[0, b + 1] = y
            b -= 1
        orders[0, b + 1] = x


@njit(cache=True, inline="always")
def _ring_pop(queue, head):
    """The entry at ``head`` of the ring buffer ``queue`` and the next head (the caller counts)."""
    value = queue[head]
    head += 1
    if head == queue.shape[0]:
        head = 0
    return value, head


@njit(cache=True, inline="always")
def _ring_push(queue, head, count, value):
    """Append ``value`` to the ring buffer ``queue`` whose ``count`` entries start at ``head``;
    return the new count (the caller keeps ``count < len(queue)``)."""
    pos = head + count
    if pos >= queue.shape[0]:
        pos -= queue.shape[0]
    queue[pos] = value
    return count + 1
