"""Public names imported on first use (PEP 562), so that importing a package costs little.

Examples
--------
>>> namespace = {}
>>> load = lazy_loader(namespace, "pkg", {"sqrt": "math", "json": "json"}, modules=("json",))
>>> load("sqrt")(4.0), load("json").__name__, sorted(namespace)
(2.0, 'json', ['json', 'sqrt'])
"""

from __future__ import annotations

import importlib

__all__ = ["lazy_loader"]


def lazy_loader(namespace: dict, package: str, table: dict, *, modules=()):
    """A module ``__getattr__`` for ``package``: ``table`` maps a name to the module defining it
    (a name in ``modules`` is that module itself); the value is kept in ``namespace`` (the
    package's ``globals()``), so each name is imported once."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(table[name])
        value = module if name in modules else getattr(module, name)
        namespace[name] = value
        return value

    return __getattr__
