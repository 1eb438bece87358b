"""What a purge would remove and what stops it: a pure plan over a scan of the environment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ConfigError, TritondevError, WouldLoseData
from bootstrap.purge.scan import Owner, TritonScan


@dataclass(frozen=True)
class Blocker:
    """A distribution pip cannot (or must not) remove, and why: the purge does nothing while there is one."""

    owner: Owner
    reason: str
    fix: str | None = None  # None: reinstall it so that pip knows its files
    error: type[TritondevError] = ConfigError


@dataclass(frozen=True)
class PurgePlan:
    owners: tuple[Owner, ...]  # uninstalled with pip, in this order
    leftovers: tuple[Path, ...]  # deleted after pip is done (all inside site-packages)
    unowned_files: tuple[Path, ...]  # files pip will leave in triton/; deleted with it
    shadows: tuple[Path, ...]  # reported, never deleted
    blocked: tuple[str, ...]  # why nothing may be done (the reasons of `blockers`)
    blockers: tuple[Blocker, ...] = ()
    # The scan's `pip list` answered: `python -m pip` runs in the target, which the purge needs.
    pip_answered: bool = False

    @property
    def empty(self) -> bool:
        return not self.owners and not self.leftovers

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(o.name for o in self.owners))

    def pip_args(self) -> tuple[str, ...]:
        return ("uninstall", "-y", *self.names)

    def to_json(self) -> dict[str, object]:
        return {
            "uninstall": [{"name": o.name, "version": o.version, "dist_info": str(o.dist_info)} for o in self.owners],
            "pip_args": list(self.pip_args()) if self.owners else [],
            "leftovers": [str(p) for p in self.leftovers],
            "unowned_files": [str(p) for p in self.unowned_files],
            "shadows_kept": [str(p) for p in self.shadows],
            "blocked": list(self.blocked),
        }


def plan_purge(found: TritonScan) -> PurgePlan:
    """What a purge of `found` removes. Pure."""
    from packaging.utils import canonicalize_name

    blocked = [
        Blocker(
            o,
            f"{o.name} {o.version} ({o.dist_info}) has no RECORD, so pip cannot uninstall it and its files are unknown",
        )
        for o in found.owners
        if o.record_missing
    ]
    if found.pip_listed is not None:
        listed = set(found.pip_listed)
        blocked += [
            Blocker(
                o,
                f"{o.name} {o.version} ({o.dist_info}) is not listed by the environment's pip"
                " (broken metadata), so pip cannot uninstall it",
            )
            for o in found.owners
            if not o.record_missing and canonicalize_name(o.name) not in listed
        ]
    blocked += [_foreign_blocker(o) for o in found.owners if o.foreign]
    return PurgePlan(
        owners=found.owners,
        leftovers=found.leftovers,
        unowned_files=found.unowned_files,
        shadows=found.shadows,
        blocked=tuple(b.reason for b in blocked),
        blockers=tuple(blocked),
        pip_answered=found.pip_listed is not None,
    )


def _foreign_blocker(owner: Owner) -> Blocker:
    more = f" (and {len(owner.foreign) - 1} more)" if len(owner.foreign) > 1 else ""
    return Blocker(
        owner,
        f"{owner.name} {owner.version} ({owner.dist_info}) lists files that are not Triton's, which"
        f" `pip uninstall` would delete: {owner.foreign[0]}{more}; nothing was removed",
        fix=f"look at {owner.dist_info}/RECORD and entry_points.txt; if it is broken, remove that metadata folder"
        " by hand (the files under triton/ are then leftovers purge removes), then run purge again",
        error=WouldLoseData,
    )
