"""The background process of :func:`mopt._numba_cache.compile_ahead`:
``python -m mopt._ahead package.module:function PARENT_PID``.

It calls ``function()`` (which calls numba kernels with arguments of the types a run will pass, so
that they compile and land in numba's on-disk cache) and exits: 0 when it did, 1 when it failed
(the run then compiles the kernels itself: nothing depends on this process but time). On Linux it
ends with its parent (``PR_SET_PDEATHSIG``), so a run that is killed leaves no compilation behind.
"""

from __future__ import annotations

import os
import sys


def _end_with_parent(parent: int, exit=sys.exit) -> None:
    """Ask the kernel for SIGTERM when the parent ends (Linux; elsewhere nothing), then make sure
    the parent had not already ended before the request (else ``exit(1)``: ``os._exit`` in a forked
    child)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        exit(1)


def main(argv: list[str]) -> int:
    from mopt._numba_cache import target_function

    target, parent = argv[0], int(argv[1])
    _end_with_parent(parent)
    try:
        target_function(target)()
    except Exception:  # noqa: BLE001 - the run compiles the kernels itself
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
