"""Is the triton that imports ours? Version +git<sha8> of the checkout, imported from the checkout,
built against the LLVM build at the pinned commit (read from the Triton build folder's
CMakeCache.txt in a way that holds for every era: bootstrap.pipeline.buildtree.llvm_build_of).

What the target says comes from bootstrap/inside/tritondev_provenance.py; what the build trees say
from bootstrap.pipeline.buildtree. `judge` is the pure comparison of the two with what setup built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap import inside
from bootstrap.core.runner import Runner
from bootstrap.pipeline import recipe as P
from bootstrap.pipeline.buildtree import llvm_build_of, read_vcs_revision, triton_cmake_dirs
from bootstrap.pipeline.sanitizer import preload_env


@dataclass(frozen=True)
class Expected:
    """What setup built: where, from which checkout, against which LLVM."""

    triton_src: Path
    setup_dir: Path
    llvm_build: Path
    llvm_commit: str
    base_version: str | None  # setup.py's TRITON_VERSION base (Triton < 3.2 had no +git suffix)


def judge(expected: Expected, installed: dict[str, Any], head: str, built_with: str | None,
          revision: str | None) -> dict[str, object]:
    """Findings: `ok` says all; `problems` names each difference. Pure."""
    problems: list[str] = []
    version = installed.get("version")
    if not version:
        problems.append("triton is not installed in the target environment")
    elif not str(version).endswith(f"+git{head[:8]}"):
        base = expected.base_version
        if not (base is not None and P.version_key(base) < (3, 2) and version == base):
            problems.append(f"installed triton {version} does not end in +git{head[:8]} (the checkout's HEAD)")
    file = installed.get("file")
    wanted = (expected.triton_src / "python" / "triton").resolve()
    if not file:
        problems.append(f"`import triton` fails: {installed.get('error', 'unknown error')}")
    elif Path(str(file)).resolve().parent != wanted:
        problems.append(f"`import triton` loads {file}, not the checkout's {wanted}")
    if built_with is None:
        problems.append(f"no Triton cmake build folder with a CMakeCache.txt under {expected.setup_dir / 'build'}")
    elif Path(built_with).resolve() != expected.llvm_build.resolve():
        problems.append(f"Triton was built against LLVM {built_with}, not {expected.llvm_build}")
    if revision != expected.llvm_commit:
        problems.append(f"the LLVM build {expected.llvm_build} is at {revision or 'an unknown revision'},"
                        f" the pin is {expected.llvm_commit}")
    return {"ok": not problems, "version": version, "file": file, "triton_head": head, "llvm_syspath": built_with,
            "llvm_revision": revision, "problems": problems}


def verify_provenance(runner: Runner, python: Path, expected: Expected, cwd: Path) -> dict[str, object]:
    """Ask the target which triton it has, read the build trees, and judge."""
    dirs = triton_cmake_dirs(expected.setup_dir)
    env = preload_env(runner, dirs[0]) if dirs else {}  # an ASAN build (--sanitize address) loads only so
    try:
        _, installed = inside.run_json(runner, python, "tritondev_provenance.py", step="verify", timeout=600, cwd=cwd,
                                       env=dict(env))
    except inside.BadAnswer as exc:
        installed = {"version": None, "file": None, "error": f"the provenance probe did not answer: {exc}"}
    head = runner.run(["git", "-C", str(expected.triton_src), "rev-parse", "HEAD"], step="verify", probe=True,
                      check=False).stdout.strip()
    dirs = triton_cmake_dirs(expected.setup_dir)
    built_with = llvm_build_of(dirs[0]) if dirs else None
    return judge(expected, installed, head, built_with, read_vcs_revision(expected.llvm_build))
