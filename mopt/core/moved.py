"""Old names kept for one release after a move (issue #20): a module or a name that moved warns
with a ``DeprecationWarning`` naming its new place, then is the new one."""

from __future__ import annotations

import importlib
import sys
import warnings


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated; use {new} (the old name goes in the next release)",
                  DeprecationWarning, stacklevel=4)


def moved_module(old: str, new: str) -> None:
    """Called by the module ``old``'s file: warn, then make ``import old`` give the module ``new``
    itself (every name, private ones too)."""
    _warn(old, new)
    sys.modules[old] = importlib.import_module(new)


def moved_names(module: str, names: dict[str, str]):
    """A module ``__getattr__`` for ``module`` whose old names (``names``: old name -> new
    ``package.module.name``) warn and give the new object."""

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_module, _, new_name = names[name].rpartition(".")
        _warn(f"{module}.{name}", names[name])
        return getattr(importlib.import_module(new_module), new_name)

    return __getattr__
