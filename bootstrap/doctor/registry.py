"""The registry of named checks, in groups, and how a selection of them is chosen."""

from __future__ import annotations

from collections.abc import Callable

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
