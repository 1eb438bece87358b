"""Is the triton that imports ours? Version +git<sha8> of the checkout (or the plain version a
release branch's setup.py gives), imported from the checkout, built against the LLVM build setup named
at the pinned commit.

"Built against" is read from what the build really used, never from LLVM_SYSPATH alone (a folder
configured again keeps what its first configure cached: bootstrap.pipeline.host.fresh_cache): the LLVM_DIR,
MLIR_DIR and LLD_DIR that find_package left in the Triton build folder's CMakeCache.txt, and the LLVM,
MLIR and lld libraries its build.ninja links libtriton.so with, must all be inside that LLVM build,
whose VCSRevision.h holds the pinned commit. A difference names both sides (exit 1 from setup).

What the target says comes from bootstrap/core/target/scripts/tritondev_provenance.py; what the build trees say
from bootstrap.pipeline.host.buildtree. `judge` is the pure comparison of the two with what setup built.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bootstrap.core.process.runner import Runner
from bootstrap.core.target import inside
from bootstrap.git.history import checked_out_commit
from bootstrap.pipeline.host.buildtree import (
    linked_llvm_libraries,
    llvm_build_of,
    outside_tree,
    read_vcs_revision,
    triton_cmake_dirs,
)
from bootstrap.pipeline.host.fresh_cache import read_cache
from bootstrap.pipeline.host.sanitizer import preload_env


@dataclass(frozen=True)
class Expected:
    """What setup built: where, from which checkout, against which LLVM."""

    triton_src: Path
    setup_dir: Path
    llvm_build: Path
    llvm_commit: str
    base_version: str | None  # setup.py's TRITON_VERSION base (Triton < 3.2 had no +git suffix)


@dataclass(frozen=True)
class BuiltWith:
    """What the Triton build folder says it used: LLVM entries of its cache outside the LLVM build setup
    named (name, value), and libraries libtriton.so is linked with from outside it."""

    llvm_syspath: str | None
    cached_elsewhere: tuple[tuple[str, str], ...] = ()
    linked_elsewhere: tuple[str, ...] = ()


CACHED_LLVM_ENTRIES = ("LLVM_DIR", "MLIR_DIR", "LLD_DIR")


def built_with(build: Path, llvm: Path) -> BuiltWith:
    """Read the folder's cache and build.ninja against the LLVM build `llvm`."""
    cache = read_cache(build)
    values = cache.values if cache is not None else {}
    cached = tuple(
        (name, values[name])
        for name in CACHED_LLVM_ENTRIES
        if values.get(name) and not values[name].endswith("-NOTFOUND") and outside_tree([values[name]], llvm)
    )
    return BuiltWith(llvm_build_of(build), cached, tuple(outside_tree(linked_llvm_libraries(build), llvm)))


def _version_problem(expected: Expected, version: str | None, head: str) -> str | None:
    if not version:
        return "triton is not installed in the target environment"
    if version.endswith(f"+git{head[:8]}"):
        return None
    # Before 3.2 (no suffix yet), and a release branch's own setup.py (#5405, release/3.2.x): plain.
    if expected.base_version is not None and version == expected.base_version:
        return None
    return f"installed triton {version} does not end in +git{head[:8]} (the checkout's HEAD)"


def _llvm_problems(expected: Expected, built: BuiltWith | None) -> list[str]:
    if built is None or built.llvm_syspath is None:
        return [f"no Triton cmake build folder with a CMakeCache.txt under {expected.setup_dir / 'build'}"]
    problems = []
    if Path(built.llvm_syspath).resolve() != expected.llvm_build.resolve():
        problems.append(f"Triton was built against LLVM {built.llvm_syspath}, not {expected.llvm_build}")
    for name, value in built.cached_elsewhere:
        problems.append(f"the Triton build folder's {name} is {value}, not inside {expected.llvm_build}")
    if built.linked_elsewhere:
        where = sorted({str(Path(p).parent) for p in built.linked_elsewhere})
        problems.append(
            f"libtriton.so is linked with {len(built.linked_elsewhere)} LLVM libraries from"
            f" {', '.join(where)}, not from {expected.llvm_build}"
        )
    return problems


@dataclass(frozen=True)
class Provenance:
    """What verify found: the installed triton (its version and file), what its build used, and each
    difference from what setup built (`problems`; none: `ok`)."""

    version: str | None
    file: str | None
    triton_head: str
    llvm_syspath: str | None
    llvm_cached_elsewhere: tuple[tuple[str, str], ...]
    llvm_linked_elsewhere: tuple[str, ...]
    llvm_revision: str | None
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "version": self.version,
            "file": self.file,
            "triton_head": self.triton_head,
            "llvm_syspath": self.llvm_syspath,
            "llvm_cached_elsewhere": dict(self.llvm_cached_elsewhere),
            "llvm_linked_elsewhere": list(self.llvm_linked_elsewhere),
            "llvm_revision": self.llvm_revision,
            "problems": list(self.problems),
        }


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def judge(
    expected: Expected, installed: dict[str, Any], head: str, built: BuiltWith | None, revision: str | None
) -> Provenance:
    """The findings: each difference named in `problems`. Pure."""
    problems: list[str] = []
    version = _text(installed.get("version"))
    problem = _version_problem(expected, version, head)
    if problem:
        problems.append(problem)
    file = _text(installed.get("file"))
    wanted = (expected.triton_src / "python" / "triton").resolve()
    if not file:
        problems.append(f"`import triton` fails: {installed.get('error', 'unknown error')}")
    elif Path(file).resolve().parent != wanted:
        problems.append(f"`import triton` loads {file}, not the checkout's {wanted}")
    problems += _llvm_problems(expected, built)
    if revision != expected.llvm_commit:
        problems.append(
            f"the LLVM build {expected.llvm_build} is at {revision or 'an unknown revision'},"
            f" the pin is {expected.llvm_commit}"
        )
    return Provenance(
        version,
        file,
        head,
        built.llvm_syspath if built else None,
        built.cached_elsewhere if built else (),
        built.linked_elsewhere if built else (),
        revision,
        tuple(problems),
    )


def verify_provenance(runner: Runner, python: Path, expected: Expected, cwd: Path) -> Provenance:
    """Ask the target which triton it has, read the build trees, and judge."""
    dirs = triton_cmake_dirs(expected.setup_dir)
    env = preload_env(runner, dirs[0]) if dirs else {}  # an ASAN build (--sanitize address) loads only so
    try:
        _, installed = inside.run_json(
            runner, python, "tritondev_provenance.py", step="verify", timeout=600, cwd=cwd, env=dict(env)
        )
    except inside.BadAnswer as exc:
        installed = {"version": None, "file": None, "error": f"the provenance probe did not answer: {exc}"}
    head = checked_out_commit(expected.triton_src, runner, "verify")
    dirs = triton_cmake_dirs(expected.setup_dir)
    built = built_with(dirs[0], expected.llvm_build) if dirs else None
    return judge(expected, installed, head, built, read_vcs_revision(expected.llvm_build))
