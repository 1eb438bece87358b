"""Where this machine's NVIDIA tools are (ptxas, nvdisasm, cuobjdump): the one lookup every command uses.

Triton chooses its own tool first (knobs.py `env_nvidia_tool`): the `TRITON_<TOOL>_PATH` variable,
else the copy it bundles in `backends/nvidia/bin`. Beyond that, a tool is looked for where CUDA puts
it, most conventional first: the toolkit that `CUDA_HOME` (or `CUDA_PATH`, `CUDA_ROOT`) names,
`/usr/local/cuda`, the PATH, versioned toolkits (`/usr/local/cuda-13.0`, `/opt/cuda*`; newest first),
and NVIDIA's pip wheels (`nvidia/cuda_nvcc/bin`, `nvidia/cu13/bin`) and torch's bundled copy in a
site-packages folder. Each file is named once, however many ways lead to it. Reading only: nothing
here runs a tool.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

TOOLKIT_VARIABLES = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")
DEFAULT_TOOLKIT = Path("/usr/local/cuda")
_VERSIONED_TOOLKITS = ("/usr/local/cuda-*", "/opt/cuda*")

Which = Callable[[str], "str | None"]


def toolkit_root(environ: Mapping[str, str]) -> Path:
    """The CUDA toolkit a build takes its tools and headers from: the first of CUDA_HOME, CUDA_PATH and
    CUDA_ROOT that is set, else /usr/local/cuda (whether or not it exists: the caller says what is missing)."""
    given = next((environ[name] for name in TOOLKIT_VARIABLES if environ.get(name)), None)
    return Path(given) if given else DEFAULT_TOOLKIT


def _toolkit_version(folder: str) -> tuple[int, ...]:
    match = re.search(r"cuda-?(\d+(?:\.\d+)*)", os.path.basename(folder))
    return tuple(int(n) for n in match.group(1).split(".")) if match else ()


def _toolkit_candidates(
    name: str, environ: Mapping[str, str], which: Which, site_packages: Sequence[str | os.PathLike[str]]
) -> Iterable[str | None]:
    yield from (os.path.join(environ[var], "bin", name) for var in TOOLKIT_VARIABLES if environ.get(var))
    yield str(DEFAULT_TOOLKIT / "bin" / name)
    yield which(name)
    versioned = [folder for pattern in _VERSIONED_TOOLKITS for folder in glob.glob(pattern)]
    yield from (os.path.join(folder, "bin", name) for folder in sorted(versioned, key=_toolkit_version, reverse=True))
    for site in site_packages:
        yield from sorted(glob.glob(os.path.join(os.fspath(site), "nvidia", "*", "bin", name)), reverse=True)
        yield os.path.join(os.fspath(site), "torch", "bin", name)


def _existing(candidates: Iterable[str | None]) -> list[str]:
    """The candidates that are executable files, each file once (the first path that reaches it)."""
    found: dict[str, str] = {}
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            found.setdefault(os.path.realpath(candidate), candidate)
    return list(found.values())


def _path_lookup(environ: Mapping[str, str]) -> Which:
    return lambda name: shutil.which(name, path=environ.get("PATH", ""))


def toolkit_copies(
    name: str,
    environ: Mapping[str, str] | None = None,
    which: Which | None = None,
    site_packages: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """Every copy of tool `name` on this machine outside Triton, most conventional first (see the module's
    docstring). which: the PATH lookup (default: `environ`'s PATH)."""
    env = os.environ if environ is None else environ
    return _existing(_toolkit_candidates(name, env, which or _path_lookup(env), site_packages))


def nvidia_tools(
    name: str,
    bundled_dir: str | None,
    environ: Mapping[str, str] | None = None,
    which: Which | None = None,
    site_packages: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """Every copy of an NVIDIA tool worth trying, in order: Triton's knob variable and its bundled copy
    (bundled_dir; the way Triton itself chooses), then the machine's (toolkit_copies). A later one is
    the answer when an earlier one cannot read a cubin, as a bundled 12.8 nvdisasm cannot decode
    sm_121a that the toolkit's 13.x can."""
    env = os.environ if environ is None else environ
    own = [env.get(f"TRITON_{name.upper()}_PATH")]
    if bundled_dir:
        own.append(os.path.join(bundled_dir, name))
    return _existing([*own, *toolkit_copies(name, env, which, site_packages)])


def nvidia_tool(
    name: str, bundled_dir: str | None, environ: Mapping[str, str] | None = None, which: Which | None = None
) -> str | None:
    """The first of nvidia_tools: the one Triton itself would use, where it has one."""
    tools = nvidia_tools(name, bundled_dir, environ, which)
    return tools[0] if tools else None
