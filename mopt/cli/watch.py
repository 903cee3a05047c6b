"""``mopt report --watch``: a live page of a search from its journal while the search runs.

Every ``--interval`` seconds the journal is read read-only (:func:`mopt.core.journal_view.read_journal`:
the watch never blocks a writer) and the page is written again, atomically (a temporary file
renamed over the old page), so a browser never reads half of it; the page reloads itself at the
same pace.  It shows the front so far (per design the means over the replications the journal
holds, ± standard error), the replications spent, the pace over the last minute of reads and, when a
budget is known (``--budget``, or the scenario's ``[run]`` budget or its method's default), the
time left at that pace.

Where the page goes: ``--out PATH``; else ``DIR/report.html``; else beside the journal
(``run.sqlite`` -> ``run.report.html``).  In ``DIR`` the page is a set of its own (a manifest
beside it), so ``mopt frontier --out DIR`` may replace it; once ``DIR`` holds a result (the
search wrote its set), the watch stops and leaves that result's own report in place.  It also
stops when the budget is spent, at ``--once`` after one page, and at Ctrl-C (exit code 0).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from mopt.core.errors import InputError

__all__ = ["add_arguments", "run", "find_journal", "WatchPage"]

#: the page of a watch in a directory is recorded in this manifest (a set ``mopt frontier`` replaces)
COMMAND = "report --watch"
#: how many seconds of past reads the pace is measured over
PACE_WINDOW = 60.0
#: seconds between refreshes unless ``--interval`` says
DEFAULT_INTERVAL = 2.0
#: refreshes in a row whose read may fail before the watch gives up
MISSES = 3


def add_arguments(report) -> None:
    """Add the watch's options to the ``report`` subparser."""
    report.add_argument("--watch", action="store_true",
                        help="keep a live page of a running search up to date from its journal: the "
                             "front so far, replications spent, time left at the current pace")
    report.add_argument("--journal", default=None, metavar="FILE",
                        help="with --watch: the search's journal (default: the one journal in DIR)")
    report.add_argument("--scenario", default=None, metavar="SCENARIO.toml",
                        help="with --watch: the search's scenario, for the designs' parameters, the labels "
                             "of the objectives and the budget (its journal must be of this scenario)")
    report.add_argument("--budget", type=int, default=None, metavar="B",
                        help="with --watch: the search's budget in replications (default: the scenario's)")
    report.add_argument("--interval", type=float, default=DEFAULT_INTERVAL, metavar="SECONDS",
                        help="with --watch: seconds between refreshes (default: 2)")
    report.add_argument("--once", action="store_true", help="with --watch: write the page once and exit")


def find_journal(directory: Path) -> Path:
    """The one mopt journal in ``directory`` (as ``mopt frontier --journal DIR/run.sqlite --out DIR``
    keeps it), else an error naming ``--journal``."""
    from mopt.core.journal_view import is_journal

    if not directory.is_dir():
        raise InputError(f"'--watch': {str(directory)!r} is not a directory; give --journal FILE, the "
                         "journal of the search.")
    found = sorted(p for p in directory.iterdir()
                   if not p.name.endswith(("-wal", "-shm", "-journal")) and is_journal(p))
    if not found:
        raise InputError(f"'--watch': {str(directory)!r} holds no mopt journal; give --journal FILE, the "
                         "journal the search writes (mopt frontier --journal FILE).")
    if len(found) > 1:
        raise InputError(f"'--watch': {str(directory)!r} holds {len(found)} journals "
                         f"({', '.join(p.name for p in found)}); give --journal FILE.")
    return found[0]


class WatchPage:
    """The live page of one journal: :meth:`render` draws a snapshot, remembering the counts it saw
    (for the pace)."""

    def __init__(self, journal: Path, *, scenario=None, problem=None, budget: int | None = None,
                 interval: float = 2.0, plotly_src: str | None = None):
        self.journal = journal
        self.plotly_src = plotly_src  # plotly's JavaScript: inlined (None) or loaded from this address
        self.scenario = scenario
        self.problem = problem
        self.budget = budget
        self.interval = interval
        self.seen: list[tuple[float, int]] = []  # (read at, replications)
        self._decoded: dict[int, dict] = {}  # design -> its parameters

    def pace(self, snap) -> float | None:
        """Replications per second over the last :data:`PACE_WINDOW` seconds of reads (None until
        two reads apart in time)."""
        self.seen = [(t, n) for t, n in self.seen if snap.read_at - t <= PACE_WINDOW] + [(snap.read_at, snap.n_replications)]
        (t0, n0), (t1, n1) = self.seen[0], self.seen[-1]
        return (n1 - n0) / (t1 - t0) if t1 > t0 else None

    def progress(self, snap):
        """The progress table (a DataFrame of two columns)."""
        import pandas as pd

        rate = self.pace(snap)
        if self.budget is None:
            left = "unknown (no budget: give --budget or --scenario)"
        elif snap.n_replications >= self.budget:
            left = "none: the budget is spent"
        elif not rate:
            left = "unknown (no replications committed since the watch began)" if len(self.seen) > 1 else \
                "unknown until the next refresh (the pace is measured between reads)"
        else:
            left = _duration((self.budget - snap.n_replications) / rate)
        rows = [("replications spent", f"{snap.n_replications:,}"
                 + (f" of {self.budget:,} ({snap.n_replications / self.budget:.1%})" if self.budget else "")),
                ("designs simulated", f"{len(snap.designs):,}"),
                ("designs on the front so far", f"{int(snap.designs['on_front'].sum()):,}"),
                ("pace", "unknown" if rate is None else f"{rate:,.1f} replications/s over the last "
                                                       f"{_duration(self.seen[-1][0] - self.seen[0][0])}"),
                ("time left at this pace", left)]
        return pd.DataFrame(rows, columns=["", "value"])

    def render(self, snap) -> str:
        """The page of ``snap`` (a :class:`~mopt.core.journal_view.JournalSnapshot`) as text."""
        import numpy as np
        import pandas as pd

        from mopt.report.summary_page import Scatter, render_summary_report
        from mopt.report.tables import Z95

        objectives = list(snap.objectives)
        fam = None if self.scenario is None else self.scenario.family_object
        label = {o: fam.label(o) if fam is not None else o for o in objectives}
        designs = snap.designs.copy()
        front = designs[designs["on_front"]].sort_values(objectives)
        shown = pd.DataFrame({"design": front["design"].to_numpy()})
        for name, column in self._parameters(front["design"]).items():
            shown[name] = column.to_numpy()
        shown["replications"] = front["n_reps"].to_numpy()
        for o in objectives:
            shown[label[o]] = [_mean_se(m, s) for m, s in zip(front[o], front[f"{o}_se"], strict=True)]
        scatter = None
        if len(objectives) >= 2 and len(designs):
            designs["set"] = np.where(designs["on_front"], "front so far", "dominated so far")
            designs["half_width"] = Z95 * designs[f"{objectives[1]}_se"]
            scatter = Scatter(designs, objectives[0], objectives[1], label[objectives[0]], label[objectives[1]],
                              label="design", group="set", error_y="half_width", hover=("n_reps",))
        read = datetime.fromtimestamp(snap.read_at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        lead = (f"The search writing {snap.path} so far, read at {read} and again every "
                f"{self.interval:g} s (this page reloads itself). Per design, the means over the replications "
                "the journal holds (± standard error): the front so far, not the search's answer, which "
                "mopt frontier writes at the end with how sure each design is.")
        facts = {"journal": str(snap.path), "problem fingerprint": snap.fingerprint, "seed": snap.seed,
                 "objectives": ", ".join(objectives), "read at": read}
        if self.scenario is not None:
            facts["scenario"] = str(self.scenario.path)
        return render_summary_report(title=f"mopt watch: {snap.path.name}", lead=lead,
                                     tables=[("Progress", self.progress(snap)),
                                             (f"Front so far ({len(front)} designs)", shown)],
                                     scatter=scatter, facts=facts, refresh=self.interval,
                                     plotly_src=self.plotly_src)

    def _parameters(self, designs) -> dict:
        """The decoded parameters of each design (the scenario's problem), none without it."""
        import pandas as pd

        if self.problem is None:
            return {}
        for i in designs:  # decoded once per design over the watch
            if int(i) not in self._decoded:
                self._decoded[int(i)] = self.problem.decode(self.problem.design(int(i)))
        frame = pd.DataFrame([self._decoded[int(i)] for i in designs], index=designs.index)
        return {c: frame[c] for c in frame.columns}


def _mean_se(mean: float, se: float) -> str:
    """``mean ± se``, the error to two significant digits and the mean to the same place.

    Examples
    --------
    >>> _mean_se(5141.45, 137.78), _mean_se(0.75969, 0.008239), _mean_se(2.0, float("nan"))
    ('5,141 ± 140', '0.7597 ± 0.0082', '2 (1 replication)')
    """
    import numpy as np

    if not np.isfinite(mean):
        return "-"
    if not np.isfinite(se):
        return f"{mean:,.4g} (1 replication)"
    if se == 0:
        return f"{mean:,.6g} ± 0"
    places = max(0, 1 - int(np.floor(np.log10(se))))
    return f"{mean:,.{places}f} ± {round(se, 1 - int(np.floor(np.log10(se)))):,.{places}f}"


def _duration(seconds: float) -> str:
    """A duration in words: ``95`` -> ``'1 min 35 s'``."""
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h} h {m} min" if h else f"{m} min {s} s" if m else f"{s} s"


def _scenario_problem(args, snap):
    """The scenario (or None), its problem, and the budget: ``--budget``, else the scenario's."""
    if args.scenario is None:
        return None, None, args.budget
    import mopt
    from mopt.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    problem = scenario.problem(seed=snap.seed)
    if problem.fingerprint() != snap.fingerprint:
        raise InputError(f"'--journal' {str(snap.path)!r} was written for another problem (fingerprint "
                         f"{snap.fingerprint}; the problem of '--scenario' {args.scenario!r} is "
                         f"{problem.fingerprint()}).")
    budget = args.budget if args.budget is not None else scenario.budget
    if budget is None:
        try:
            budget = int(mopt.METHODS[scenario.method](**scenario.options)._default_budget(problem))
        except Exception:  # noqa: BLE001 - a method whose budget follows from the search: unknown
            budget = None
    return scenario, problem, budget


def _check(args) -> None:
    import math

    if args.interval is None or not math.isfinite(args.interval) or args.interval <= 0:
        raise InputError(f"'--interval' must be a number of seconds > 0; got {args.interval}.")
    if args.budget is not None and args.budget < 1:
        raise InputError(f"'--budget' must be an integer >= 1; got {args.budget}.")


def run(args) -> int:
    """Run ``mopt report --watch`` with parsed ``args``; return the exit code."""
    from mopt.core.journal_view import read_journal

    _check(args)
    directory = None if args.directory is None else Path(args.directory)
    if directory is not None and directory.is_file():
        raise InputError(f"'{directory}' is a file; give the directory of the live page (or --journal FILE alone).")
    journal = Path(args.journal) if args.journal is not None else None
    if journal is None:
        if directory is None:
            raise InputError("'--watch' needs the search's journal: give --journal FILE or DIR holding it.")
        journal = find_journal(directory)
    snap = read_journal(journal)
    scenario, problem, budget = _scenario_problem(args, snap)
    target = _target(args, directory, journal)
    from mopt.report.plotly_asset import plotly_src

    page = WatchPage(journal, scenario=scenario, problem=problem, budget=budget, interval=args.interval,
                     plotly_src=plotly_src(getattr(args, "report_assets", None), target.path))
    try:
        while True:
            if not target.write(page.render(snap)):
                print(f"{target.directory} now holds the search's result; its report.html is the final report.")
                return 0
            if args.once:
                print(target.path)
                return 0
            if budget is not None and snap.n_replications >= budget:
                print(f"{target.path}: the budget of {budget:,} replications is spent; watch ended.")
                return 0
            time.sleep(args.interval)
            snap = _reread(journal, snap, target, args.interval)
            if snap is None:
                print(f"{target.directory} now holds the search's result; its report.html is the final report.")
                return 0
    except KeyboardInterrupt:
        print(f"\nwatch stopped; {target.path} shows the journal as of the last refresh.", file=sys.stderr)
        return 0


def _reread(journal: Path, last, target, interval: float):
    """The journal read again (None once the search's result is in the watched directory).  A read
    that fails is tried again at the next refresh, up to :data:`MISSES` times in a row (a search
    swapping its set in where the directory cannot be exchanged in one step leaves it absent for an
    instant); a journal that now holds another problem or seed ends the watch."""
    from mopt.core.journal_view import read_journal

    misses = 0
    while True:
        if isinstance(target, _Directory) and target.finished():
            return None
        try:
            snap = read_journal(journal)
            break
        except InputError:
            misses += 1
            if misses == MISSES:
                raise
            time.sleep(interval)
    if (snap.fingerprint, snap.seed) != (last.fingerprint, last.seed):
        raise InputError(f"'--journal' {str(journal)!r} now holds another problem or seed (fingerprint "
                         f"{snap.fingerprint}, seed {snap.seed}; the watch began on {last.fingerprint}, "
                         f"seed {last.seed}): watch ended.")
    return snap


def _target(args, directory: Path | None, journal: Path):
    """Where the page goes: ``--out``, else ``DIR/report.html``, else beside the journal (never
    the journal itself nor SQLite's files beside it)."""
    inputs = [journal, *(Path(f"{journal}{s}") for s in ("-wal", "-shm", "-journal"))]
    if args.out is not None:
        return _File(Path(args.out), inputs)
    if directory is not None:
        from mopt.core.output_sets import MANIFEST

        for name in ("report.html", MANIFEST):
            if any(_same(directory / name, i) for i in inputs):
                raise InputError(f"'--journal' {str(journal)!r} is {directory / name}, which the watch writes; "
                                 "give the journal another name.")
        return _Directory(directory)
    return _File(journal.with_name(journal.stem + ".report.html"), inputs)


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class _File:
    """A page at a path of its own, replaced atomically."""

    def __init__(self, path: Path, inputs=()):
        from mopt.core.outputs import check_out_file

        self.path = check_out_file(path, inputs=inputs)
        self.directory = path.parent

    def write(self, text: str) -> bool:
        from mopt.core.set_writer import atomic_write

        atomic_write(self.path, lambda p: Path(p).write_text(text, encoding="utf-8"))
        return True


class _Directory:
    """The page as ``DIR/report.html`` with a manifest of its own: a set that ``mopt frontier --out
    DIR`` replaces.  Every write goes through one open handle of the directory, so a page is never
    written into the set the search swapped in: once ``result.json`` is there, nothing is written."""

    def __init__(self, directory: Path):
        from mopt.core.output_sets import read_manifest

        self.directory = directory
        self.path = directory / "report.html"
        if (directory / "result.json").exists():
            raise InputError(f"'{directory}' holds a finished result (result.json): its report.html is its "
                             "report (mopt report DIR draws it again); give the live page another directory "
                             "or --out PATH.")
        if directory.is_dir():  # a journal kept in DIR, the user's notes: left as they are
            manifest = read_manifest(directory)
            if manifest is not None and manifest.get("command") != COMMAND or manifest is None and (
                    os.path.lexists(self.path)):
                raise InputError(f"'{directory}' holds {'a mopt set' if manifest else 'a report.html'} of "
                                 "another command; the watch does not replace it: give another directory "
                                 "or --out PATH.")
        directory.mkdir(parents=True, exist_ok=True)

    def finished(self) -> bool:
        """Whether the directory holds a result (the search's set is in place)."""
        return os.path.lexists(self.directory / "result.json")

    def write(self, text: str) -> bool:
        from mopt import __version__
        from mopt.core.output_sets import MANIFEST

        fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if _exists("result.json", fd):
                return False
            data = text.encode()
            manifest = json.dumps({"mopt": __version__, "command": COMMAND,
                                   "files": {"report.html": hashlib.sha256(data).hexdigest()}}, indent=1) + "\n"
            _replace_at(fd, "report.html", data)
            _replace_at(fd, MANIFEST, manifest.encode())
        finally:
            os.close(fd)
        return True


def _exists(name: str, fd: int) -> bool:
    try:
        os.stat(name, dir_fd=fd)
    except FileNotFoundError:
        return False
    return True


def _replace_at(fd: int, name: str, data: bytes) -> None:
    """Write ``name`` in the directory ``fd`` atomically (a temporary file of the pattern mopt's
    other writers skip, fsync'ed, then renamed over it)."""
    tmp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    f = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(f, view):]
            os.fsync(f)
        finally:
            os.close(f)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=fd)
        except FileNotFoundError:
            pass
        raise
