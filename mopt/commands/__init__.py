"""The core subcommands of the ``mopt`` command, one module each, registered by :mod:`mopt.cli`.

``options`` (the parser class and the options every run command shares), ``outputs`` (where a run
writes and how: ``--out`` and ``--journal`` checks, the executor, the atomic set of result files),
``tables`` (plain-text tables and the rows utilities choose), then one module per command:
``demo`` (ExPERT's reference scenario; it imports :mod:`mopt.expert` only when it runs),
``frontier``, ``decide``, ``compare`` and ``traces``.  Each command module exposes
``add_parser(subparsers)`` and ``run(args)``; a problem family's own commands live in the family
(``mopt.cloud.commands``, ``mopt.cloud.portfolio_commands``, ``mopt.cloud.koala.commands``,
``mopt.vmc.commands``).
"""
