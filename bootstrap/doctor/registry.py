"""The registry of named checks, in groups, and how a selection of them is chosen."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable

from bootstrap.core.errors import UsageError
from bootstrap.doctor.model import CheckFunction, CheckSpec

# Group name -> heading, in the order the report shows them.
GROUPS: dict[str, str] = {
    "python": "Python and environment",
    "packages": "Packages",
    "toolchain": "Toolchain",
    "resources": "Resources",
    "gpu": "GPU and CUDA",
    "ptxas": "ptxas and the arch",
    "settings": "Triton settings",
    "cache": "Kernel cache",
    "workspace": "Workspace",
    "jax": "JAX",
}

REGISTRY: dict[str, CheckSpec] = {}


def check(name: str, title: str, *, slow: bool = False) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under `name` ("<group>.<what>")."""
    group = name.split(".", 1)[0]
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r} for check {name!r}")

    def register(function: CheckFunction) -> CheckFunction:
        if name in REGISTRY:
            raise ValueError(f"check {name!r} registered twice")
        REGISTRY[name] = CheckSpec(name, group, title, function, slow)
        return function

    return register


def load_checks() -> dict[str, CheckSpec]:
    """Import every check module (they register themselves) and return the registry in report order."""
    from bootstrap.doctor.checks import ALL_MODULES  # noqa: F401  (importing registers)

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
            close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UsageError(
                f"unknown check '{name}'{hint}",
                fix="list the checks with `tritondev doctor --list-checks`",
            )
    return [spec for name, spec in registry.items() if name in chosen]
