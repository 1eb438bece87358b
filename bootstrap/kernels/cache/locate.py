"""Which folder is the kernel cache: the one Triton itself would use, or the one the user names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def cache_dir(environ: Mapping[str, str], home: Path) -> tuple[Path, str]:
    """Where Triton keeps its cache, and why: TRITON_CACHE_DIR, else $TRITON_HOME/.triton/cache, else ~."""
    explicit = environ.get("TRITON_CACHE_DIR", "").strip()
    if explicit:
        return Path(os.path.expanduser(explicit)), "$TRITON_CACHE_DIR"
    triton_home = environ.get("TRITON_HOME", "").strip()
    if triton_home:
        return Path(os.path.expanduser(triton_home)) / ".triton" / "cache", "$TRITON_HOME/.triton/cache"
    return home / ".triton" / "cache", "~/.triton/cache"


def resolve_cache_dir(
    option: Path | None, environ: Mapping[str, str], env_file: Mapping[str, str], home: Path
) -> tuple[Path, str]:
    """--dir, else the environment, else the workspace env file (what `tritondev run` would set), else ~."""
    if option is not None:
        return option, "--dir"
    names = ("TRITON_CACHE_DIR", "TRITON_HOME")
    if not any(environ.get(n, "").strip() for n in names) and any(env_file.get(n, "").strip() for n in names):
        path, source = cache_dir(env_file, home)
        return path, f"{source} (workspace env file)"
    return cache_dir(environ, home)
