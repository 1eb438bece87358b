"""The catalogue of doctor's checks: every check module loaded, and the checks a `--check` selects."""

from __future__ import annotations

from collections.abc import Iterable

from bootstrap.core.errors import UsageError
from bootstrap.core.suggest import did_you_mean
from bootstrap.doctor import checks  # noqa: F401  (each check module registers its checks on import)
from bootstrap.doctor.model import CheckSpec
from bootstrap.doctor.registry import GROUPS, REGISTRY


def load_checks() -> dict[str, CheckSpec]:
    """Every check (their modules, imported with this one, registered them), in report order."""

    order = list(GROUPS)
    return dict(sorted(REGISTRY.items(), key=lambda item: (order.index(item[1].group), 0)))


def select(names: Iterable[str], registry: dict[str, CheckSpec]) -> list[CheckSpec]:
    """The checks named (a check name or a group name each); all of them when `names` is empty."""
    wanted = list(names)
    if not wanted:
        return list(registry.values())
    chosen: dict[str, CheckSpec] = {}
    for name in wanted:
        if name in registry:
            chosen[name] = registry[name]
        elif name in GROUPS:
            chosen.update({k: v for k, v in registry.items() if v.group == name})
        else:
            candidates = [*registry, *GROUPS]
            hint = did_you_mean(name, candidates, cutoff=0.5)
            raise UsageError(
                f"unknown check '{name}'{hint}",
                fix="list the checks with `tritondev doctor --list-checks`",
            )
    return [spec for name, spec in registry.items() if name in chosen]
