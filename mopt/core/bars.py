"""The progress bar's class: tqdm's notebook widget under IPython (Jupyter), its text bar elsewhere.

``tqdm.auto`` makes that choice itself, but it imports ``asyncio`` to do so: ~0.05 s of every
command's start, for a program that never runs in a notebook.
"""

from __future__ import annotations

import sys

__all__ = ["tqdm_class"]


def tqdm_class():
    """``tqdm.auto.tqdm`` when IPython is loaded (a notebook or an IPython shell), else ``tqdm.std.tqdm``.

    >>> tqdm_class().__module__ in ("tqdm.std", "tqdm.asyncio")
    True
    """
    if "IPython" in sys.modules:
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm
