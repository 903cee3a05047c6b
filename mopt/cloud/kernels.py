"""How the simulators' steps are compiled: :data:`kernel`, shared by the cloud simulator and KOALA-C.

The simulators pass their state to small compiled steps, tick after tick, as NamedTuples of arrays
(:class:`mopt.cloud.layout.Cloud`, :class:`mopt.koala.tables.KoalaState`). Numba's runtime
counts references to arrays: on entry to a function it increments the count of every array of a
tuple argument and decrements it on exit, two atomic operations per array and call, and it cannot
prune the pairs in a function that calls another compiled function (numba issue #2345). Measured
on whole KTH-SP2: KOALA-C's loop 5x slower, the cloud simulator's 11 % more CPU time.

``@kernel`` compiles a step without reference counting (Numba's ``_nrt=False``, the remedy its
developers give in that issue). Such a function cannot allocate an array (Numba refuses to compile
one that does): the functions that allocate (the state constructors, the loops' entry points,
the cloud simulator's job start and VM selection) keep the default ``njit``, and arrays a kernel
needs as scratch space are allocated once by them.

A call passes each array of a struct as seven or more machine arguments (about 300 for KOALA-C's
four structs). LLVM inlines most steps into the loop; one it does not and that runs for every
queue on every tick is ``@inlined_kernel``: inlined by Numba itself (``inline="always"``;
measured, KOALA-C's loop 30 % faster than with the call).
"""

from __future__ import annotations

from numba import njit

__all__ = ["kernel", "inlined_kernel"]

#: decorator: a compiled (cached) function without reference counting; it must not allocate
kernel = njit(cache=True, _nrt=False)
#: decorator: a :data:`kernel` inlined into its callers by Numba
inlined_kernel = njit(cache=True, _nrt=False, inline="always")
