"""Purge and restore: the plan (pure), the checks before anything changes, and the execution.

Removal goes through the target environment's own pip, round after round, until no distribution
provides `triton/` any more; only then are leftovers deleted, and only inside that environment's
site-packages. Nothing else is touched: torch and every other distribution stay; shadows outside
site-packages (a triton/ in the current directory, on PYTHONPATH, a source checkout) are reported,
never deleted.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bootstrap.core.errors import ConfigError, ExternalError, ToolMissing, WouldLoseData
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import TargetPython
from bootstrap.purge import journal, scan
from bootstrap.purge.envlock import environment_lock
from bootstrap.purge.journal import JournalEntry
from bootstrap.purge.metadata import PACKAGE
from bootstrap.purge.pipbridge import PIP_ENV
from bootstrap.purge.plan import PurgePlan
from bootstrap.purge.scan import Owner

# pip removes one installation of a name per call (two dist-infos of `triton` take two calls); a
# few rounds are enough for any real environment, and the bound stops a loop that makes no progress.
MAX_ROUNDS = 5


@dataclass
class PurgeReport:
    removed: list[JournalEntry] = field(default_factory=list)
    leftovers_removed: list[str] = field(default_factory=list)
    rounds: int = 0
    import_location: str | None = None  # where `import triton` still resolves afterwards (None: gone)
    journal: str | None = None
    run_id: str | None = None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "removed": [entry.to_json() for entry in self.removed],
            "leftovers_removed": self.leftovers_removed,
            "rounds": self.rounds,
            "import_location_after": self.import_location,
            "journal": self.journal,
            "run_id": self.run_id,
            "warnings": self.warnings,
        }


def require_pip(target: TargetPython, runner: Runner) -> None:
    result = runner.capture([target.executable, "-m", "pip", "--version"], step="purge-probe", env=PIP_ENV, check=False)
    if not result.ok:
        raise ToolMissing(
            f"pip is not installed in the target environment {target.prefix}",
            fix=f"{target.executable} -m ensurepip --upgrade",
        )


def unwritable(plan: PurgePlan, site_packages: tuple[Path, ...]) -> list[Path]:
    """Folders the purge must change but may not write (read-only mount, another user's env)."""
    folders: set[Path] = set(site_packages)
    for owner in plan.owners:
        folders.add(owner.dist_info if owner.dist_info.is_dir() else owner.dist_info.parent)
        for rel in owner.files:
            path = owner.dist_info.parent / rel
            if path.parent.is_dir():
                folders.add(path.parent)
    for leftover in plan.leftovers:
        if leftover.is_dir() and not leftover.is_symlink():
            folders.update(Path(d) for d, _subdirs, _files in os.walk(leftover))
    return sorted(f for f in folders if f.exists() and not os.access(f, os.W_OK))


def preflight(plan: PurgePlan, target: TargetPython, runner: Runner) -> None:
    """Every check that must pass before anything is removed; raises with the fix."""
    planned = {_key(o.dist_info) for o in plan.owners}
    blockers = [b for b in plan.blockers if _key(b.owner.dist_info) in planned]
    if blockers:
        # The ones that would delete what is not Triton's come first: they say most about the environment.
        blocker = sorted(blockers, key=lambda b: b.error is not WouldLoseData)[0]
        first = blocker.owner
        raise blocker.error(
            blocker.reason,
            fix=blocker.fix
            or f"reinstall it so that pip knows its files ({target.executable} -m pip install --force-reinstall"
            f" --no-deps '{first.name}=={first.version}'), or remove it with the tool that installed it"
            f"{' (' + first.installer + ')' if first.installer else ''}; then run `tritondev purge` again",
        )
    for sp in target.site_packages:
        link = sp / PACKAGE
        owning = [o for o in plan.owners if o.files and o.dist_info.parent == sp]
        if link.is_symlink() and owning:
            # pip would follow the link and delete the recorded files inside the folder it points to.
            raise ConfigError(
                f"{link} is a symlink to {os.path.realpath(link)}; uninstalling {owning[0].name} would delete"
                " files there",
                fix=f"remove the link first (rm {link}; the folder it points to stays), then run purge again",
            )
    blocked = unwritable(plan, target.site_packages)
    if blocked:
        raise ConfigError(
            f"cannot change the target environment: {blocked[0]} is not writable"
            + (f" (and {len(blocked) - 1} more)" if len(blocked) > 1 else ""),
            fix="run tritondev as the user who owns that environment, or pick a writable one with --python",
        )
    if not plan.pip_answered:  # else the scan's listing already proved it, one start of pip fewer
        require_pip(target, runner)


def current_owners(target: TargetPython) -> list[Owner]:
    dists = scan.read_site_packages(target.site_packages)
    owners = scan.owners_in(dists, target.site_packages)
    from packaging.utils import canonicalize_name

    return owners + scan.egg_link_owners(target.site_packages, {canonicalize_name(o.name) for o in owners})


def index_config(target: TargetPython, runner: Runner) -> journal.IndexConfig:
    result = runner.capture(
        [target.executable, "-m", "pip", "config", "list"],
        step="purge-probe",
        env=PIP_ENV,
        check=False,
        cwd=target.prefix,
    )
    return journal.parse_pip_config(result.stdout) if result.ok else journal.IndexConfig()


def _key(path: Path) -> str:
    """A path compared as written (absolute, normalised; links not followed)."""
    return os.path.normpath(os.path.abspath(path))


def _inside(path: Path, site_packages: tuple[Path, ...]) -> bool:
    """Is `path` a direct child of one of the site-packages folders (without following links)?"""
    parent = Path(os.path.normpath(path.absolute())).parent
    return any(parent == Path(os.path.normpath(sp.absolute())) for sp in site_packages)


def remove_leftover(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()  # a symlink into a source checkout: only the link goes
    elif path.is_dir():
        shutil.rmtree(path)


def _uninstall_rounds(plan: PurgePlan, target: TargetPython, runner: Runner, report: PurgeReport) -> None:
    """pip uninstall of the plan's owners, round after round, until none is left (at most MAX_ROUNDS)."""
    planned = {_key(o.dist_info) for o in plan.owners}
    owners = list(plan.owners)
    while owners:
        if report.rounds == MAX_ROUNDS:
            left = ", ".join(f"{o.name} {o.version}" for o in owners)
            raise ExternalError(
                f"pip uninstall left {left} installed after {MAX_ROUNDS} rounds",
                fix=f"look at {target.executable} -m pip uninstall -y {owners[0].name}; then run purge again",
            )
        runner.run(
            [target.executable, "-m", "pip", "uninstall", "-y", *dict.fromkeys(o.name for o in owners)],
            step="purge-uninstall",
            env=PIP_ENV,
            cwd=target.prefix,
            fix="see the log; nothing outside the listed distributions was touched",
        )
        report.rounds += 1
        owners = [o for o in current_owners(target) if _key(o.dist_info) in planned]


def _remove_leftovers(plan: PurgePlan, target: TargetPython, report: PurgeReport, recorded: frozenset[str]) -> None:
    """What pip leaves: triton/ once nobody owns files in it, and the leftovers the plan named, each
    proven Triton's by its content again now (what pip left may differ from the plan)."""
    allowed = {_key(p) for p in plan.leftovers} | {_key(sp / PACKAGE) for sp in target.site_packages}
    dists = scan.read_site_packages(target.site_packages)
    proven, _kept = scan.find_leftovers(target.site_packages, current_owners(target), dists, plan.owners, recorded)
    for leftover in (p.path for p in proven):
        if _key(leftover) not in allowed:
            continue
        if not _inside(leftover, target.site_packages):
            report.warnings.append(f"not removed (outside site-packages): {leftover}")
            continue
        try:
            remove_leftover(leftover)
        except OSError as exc:
            raise ConfigError(
                f"cannot remove leftover {leftover}: {exc.strerror}",
                fix="remove it by hand, as the user who owns the environment",
            ) from None
        report.leftovers_removed.append(str(leftover))


def execute_purge(plan: PurgePlan, target: TargetPython, runner: Runner, journal_path: Path) -> PurgeReport:
    """Run `plan`: checks (`preflight`), the journal, pip rounds, then leftovers; one purge or restore
    of an environment at a time (envlock.py), whichever workspace it runs from."""
    if plan.empty or runner.dry_run:
        return _execute_purge(plan, target, runner, journal_path)
    with environment_lock(target.site_packages[0], "purge"):
        return _execute_purge(plan, target, runner, journal_path)


def _execute_purge(plan: PurgePlan, target: TargetPython, runner: Runner, journal_path: Path) -> PurgeReport:
    report = PurgeReport(journal=str(journal_path))
    if plan.empty:
        report.import_location, _ = scan.import_probe(target, runner, cwd=None, environ=None, isolated=True)
        return report
    preflight(plan, target, runner)
    index = index_config(target, runner)
    saved_files = journal.recorded_package_files(journal_path, target.site_packages)
    entries = [journal.entry_for(o, index) for o in plan.owners]
    # Absolute, but not resolved: a venv's python is a symlink to the base interpreter.
    recorded = {**target.to_json(), "executable": os.path.abspath(target.executable)}
    run_id = journal.start_run(journal_path, recorded, [entry.to_json() for entry in entries])
    report.run_id = run_id
    # Only what the plan names is removed (a caller may keep an owner, e.g. setup its own editable
    # install): owners are matched by their metadata folder, round after round.
    try:
        _uninstall_rounds(plan, target, runner, report)
        _remove_leftovers(plan, target, report, saved_files)
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        journal.update_run(
            journal_path,
            run_id,
            status=status,
            finished=journal.now(),
            leftovers_removed=report.leftovers_removed,
            error=str(exc),
        )
        raise
    report.removed = entries
    report.import_location, _ = scan.import_probe(target, runner, cwd=None, environ=None, isolated=True)
    if report.import_location is not None:
        report.warnings.append(
            f"`import triton` still resolves to {report.import_location}, which is not part of this"
            " environment's site-packages; it was left alone"
        )
    journal.update_run(
        journal_path,
        run_id,
        status="done",
        finished=journal.now(),
        leftovers_removed=report.leftovers_removed,
        rounds=report.rounds,
        import_location_after=report.import_location,
    )
    return report
