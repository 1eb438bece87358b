"""`--offline`: what Triton's build then needs from this machine, and the tools it then leaves out.

TRITON_OFFLINE_BUILD (Triton 3.2 on; python/setup.py @ dbc771e8, build_helpers.py @ 6d2e38bf) makes
the build download nothing: every *_SYSPATH must be given (LLVM_SYSPATH is always ours; JSON_SYSPATH
for nlohmann/json), and `download_and_copy` returns before copying ptxas, cuobjdump, nvdisasm and the
CUDA headers into third_party/nvidia/backend. An editable install links that folder as
triton/backends/nvidia, and that is where the installed Triton looks at run time (TRITON_<TOOL>_PATH
first, then backends/nvidia/bin/<tool>, else "Cannot find ptxas"). So after the install the tools
this machine provides are copied there, as download_and_copy would have done: the installed Triton
then finds them in any shell. 3.7 also needs them during the build: its GSan runtime is compiled
with `--cuda-path=third_party/nvidia/backend` (third_party/nvidia/CMakeLists.txt @ 6d2e38bf), which
clang accepts only with bin/ and include/ (cuda.h) there; for such a checkout they go in before the
install as well (3.8 compiles it with -nocudainc).

Newest main also builds an AMD codegen library against a second LLVM (cmake/amd-llvm-info.json);
offline, build_helpers can only take it from TRITON_AMD_CODEGEN_PATH (or a bootstrap LLVM already
in its cache) — UNCONFIRMED upstream detail, see docs/pins-and-sources.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.core.io import writes
from bootstrap.env.triton_variables import TOOL_VARIABLES
from bootstrap.git.layout import TritonLayout
from bootstrap.kernels.nvidia_tools import toolkit_root

NVIDIA_BACKEND = Path("third_party") / "nvidia" / "backend"
JSON_HEADER = Path("include") / "nlohmann" / "json.hpp"


@dataclass(frozen=True)
class OfflineBuild:
    env: tuple[tuple[str, str], ...]  # TRITON_OFFLINE_BUILD=1 and the paths that replace the downloads
    place: tuple[tuple[str, str], ...]  # (path under third_party/nvidia/backend, this machine's file or folder)
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"env": dict(self.env), "place": dict(self.place), "notes": list(self.notes)}


def _json_root(environ: Mapping[str, str]) -> Path | None:
    given = environ.get("JSON_SYSPATH")
    roots = [Path(given)] if given else [Path("/usr"), Path("/usr/local")]
    return next((root for root in roots if (root / JSON_HEADER).is_file()), None)


def _cuda_paths(environ: Mapping[str, str], blackwell: bool, proton: bool) -> dict[str, Path]:
    """Each variable's path: the user's own, else the CUDA toolkit's (kernels.nvidia_tools.toolkit_root)."""
    cuda = toolkit_root(environ)
    wanted = {
        "TRITON_PTXAS_PATH": cuda / "bin" / "ptxas",
        "TRITON_CUOBJDUMP_PATH": cuda / "bin" / "cuobjdump",
        "TRITON_NVDISASM_PATH": cuda / "bin" / "nvdisasm",
        "TRITON_CUDACRT_PATH": cuda / "include",
        "TRITON_CUDART_PATH": cuda / "include",
    }
    if blackwell:
        wanted["TRITON_PTXAS_BLACKWELL_PATH"] = Path(environ.get("TRITON_PTXAS_PATH") or wanted["TRITON_PTXAS_PATH"])
    if proton:  # Proton compiles against CUPTI's headers
        wanted["TRITON_CUPTI_INCLUDE_PATH"] = cuda / "extras" / "CUPTI" / "include"
    return {name: Path(environ[name]) if environ.get(name) else path for name, path in wanted.items()}


def _flag_off(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().upper() in ("0", "OFF", "NO", "FALSE", "N")


def plan_offline(
    offline: bool, backend: str, layout: TritonLayout, environ: Mapping[str, str] | None = None
) -> OfflineBuild | None:
    """What an offline build of `layout` needs here; None when not asked for (online: upstream's downloads).

    Raises UsageError (exit 2) for a Triton without TRITON_OFFLINE_BUILD, ToolMissing (exit 3) naming
    what this machine lacks.
    """
    if not offline:
        return None
    environ = os.environ if environ is None else environ
    if not layout.setup_args.offline_flag:
        raise UsageError(
            "this Triton has no offline build: TRITON_OFFLINE_BUILD came in 3.2 (its setup.py downloads pybind11,"
            " nlohmann/json and the NVIDIA tools whatever is set)",
            fix="drop --offline (the build then downloads what it needs)",
        )
    json_root = _json_root(environ)
    if json_root is None:
        raise ToolMissing(
            "an offline build needs the nlohmann/json headers (include/nlohmann/json.hpp), found neither at"
            " $JSON_SYSPATH nor under /usr or /usr/local",
            fix="apt-get install nlohmann-json3-dev, or set JSON_SYSPATH to the folder holding include/; or drop"
            " --offline",
        )
    env: list[tuple[str, str]] = [("TRITON_OFFLINE_BUILD", "1"), ("JSON_SYSPATH", str(json_root))]
    place: list[tuple[str, str]] = []
    notes: list[str] = []
    if backend == "nvidia":
        paths = _cuda_paths(environ, layout.setup_args.ptxas_blackwell, not _flag_off(environ, "TRITON_BUILD_PROTON"))
        missing = [f"{name} ({path})" for name, path in paths.items() if not path.exists()]
        if missing:
            raise ToolMissing(
                "an offline build takes the CUDA tools from this machine, and these are missing: " + ", ".join(missing),
                fix="install the CUDA toolkit (or set CUDA_HOME to it, or each TRITON_*_PATH); or drop --offline",
            )
        env += [(name, str(path)) for name, path in paths.items()]
        place += [(dst, str(paths[name])) for dst, name in TOOL_VARIABLES.items()]
        if "TRITON_PTXAS_BLACKWELL_PATH" in paths:
            place.append(("bin/ptxas-blackwell", str(paths["TRITON_PTXAS_BLACKWELL_PATH"])))
        place.append(("include", str(paths["TRITON_CUDART_PATH"])))
        when = (
            "before and after the install (3.7's build compiles the GSan runtime against that folder)"
            if layout.setup_args.gsan_cuda_path
            else "after the install"
        )
        notes.append(
            f"offline: {when}, this machine's ptxas, cuobjdump, nvdisasm and CUDA headers are"
            f" copied into {NVIDIA_BACKEND} (TRITON_OFFLINE_BUILD skips upstream's download of its pinned"
            " ones), where the installed Triton looks for them"
        )
    env_, note = _amd_codegen(layout, backend, environ)
    env += env_
    notes += note
    return OfflineBuild(tuple(env), tuple(place), tuple(notes))


def _amd_codegen(
    layout: TritonLayout, backend: str, environ: Mapping[str, str]
) -> tuple[list[tuple[str, str]], list[str]]:
    amd = layout.amd_llvm
    if amd is None:
        return [], []
    given = environ.get("TRITON_AMD_CODEGEN_PATH")
    if given:
        return [("TRITON_AMD_CODEGEN_PATH", given)], []
    if backend == "amd":
        raise ToolMissing(
            f"an offline --backend amd build of this Triton needs its AMD codegen library, which is built against a"
            f" second LLVM (cmake/amd-llvm-info.json: {amd.repository or 'ROCm/llvm-project'}@{amd.commit[:12]})"
            " and downloaded when online",
            fix="set TRITON_AMD_CODEGEN_PATH to a built library, or drop --offline",
        )
    # Only the AMD backend loads the library, at run time; pointing the variable elsewhere skips it.
    return [("TRITON_AMD_CODEGEN_PATH", os.devnull)], [
        "offline: the AMD codegen library (cmake/amd-llvm-info.json) is skipped with TRITON_AMD_CODEGEN_PATH="
        f"{os.devnull}; only the AMD backend loads it"
    ]


def excluded_paths(build: OfflineBuild) -> list[str]:
    """The placed paths, relative to the checkout, for its .git/info/exclude."""
    return [str(NVIDIA_BACKEND / dst) for dst, _ in build.place]


def place_tools(triton_src: Path, build: OfflineBuild) -> list[str]:
    """Copy the tools (and link the header folder's entries) into third_party/nvidia/backend, as
    upstream's download_and_copy would; returns what changed. Our own earlier copies are kept."""
    changed: list[str] = []
    backend = triton_src / NVIDIA_BACKEND
    for dst, src in build.place:
        source, target = Path(src), backend / dst
        if source.is_dir():
            changed += _link_entries(source, target)
            continue
        if target.is_file() and not target.is_symlink():
            # copy2 keeps the source's time: our own earlier copy matches it exactly, a download does not.
            here, there = target.stat(), source.stat()
            if (here.st_size, here.st_mtime_ns) == (there.st_size, there.st_mtime_ns):
                continue
        writes.replace_copy(target, source)  # bytes, mode and times, as copy2; never through a link
        changed.append(str(target))
    return changed


def _link_entries(source: Path, folder: Path) -> list[str]:
    """`folder` holding a link to each entry of `source` it lacks (headers: links, not copies)."""
    if folder.is_symlink():
        return []
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for entry in sorted(source.iterdir()):
        link = folder / entry.name
        if not link.exists() and not link.is_symlink():
            link.symlink_to(entry)
            made.append(str(link))
    return made
