"""The benchmark world: the test world (tests/world) plus an LLVM-sized tree on top of it.

`build_scale_world(root, units)` builds the ordinary test world, then adds to its bare repositories
(world.git_root) a commit on a branch `scale` of llvm-project (child of the pinned commit) with the
generated libraries (sources.py, cmake.py), and a commit on a branch `scale` of Triton (child of
main, the root-json era) that pins that LLVM commit in cmake/llvm-info.json and adds Triton-sized
libraries: a real LLVM bump, as far as tritondev can tell. Each commit also gets the filler
(shape.py) that gives its checkout upstream's number of files and folders: 168,826 files in 15,771
folders for llvm-project, 1,686 in 357 for Triton. `tritondev setup --mirror <world.git_root>
--triton-commit <triton_commit>` builds it the way it builds the test world. The commits are made
by `git fast-import` (the work repositories do not have them).

    python -m tests.perf.scale.world DIR [--units N]       # make a world in DIR and print its commits

Memory of the heaviest steps, measured once with /usr/bin/time -v on the development machine (2
cores, clang 14 and lld 14, Release with assertions as tritondev builds LLVM, default size) by
`python -m tests.perf.scale.measure <LLVM build folder>`, which measures them again on any build:
each of the 12 heavy compiles (X86, NVPTX, AMDGPU x ISelDAGToDAG, ISelLowering, InstrInfo,
MCTargetDesc) 1,051 MiB and 8-9 s on an idle machine;
the largest link (llvm-objdump, every LLVM library) 143 MiB, mlir-opt 70 MiB. So compile jobs, not
links, decide whether this build fits in memory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.perf.scale import cmake, layers, shape, sources
from tests.perf.scale.sources import LLVM_TOOLS, MLIR_TOOLS, TRITON_TOOLS, Plan
from tests.world.world import World, build_world

BRANCH = "scale"
# The same sources with only the filler a build reads (shape.READ_BY_THE_BUILD): for the workspaces
# that measure builds, not no-ops (fewer files to check out and delete).
LEAN_BRANCH = "scale-lean"
_DATE = "@1767225600 +0000"

# Peak resident memory (MiB) of each heavy compile, from the measurement above.
HEAVY_COMPILE_MIB = 1051


@dataclass(frozen=True)
class Tree:
    """What a commit's checkout holds: tracked files and the folders holding them."""

    files: int
    folders: int

    def describe(self) -> str:
        return f"{self.files:,} files in {self.folders:,} folders"


@dataclass(frozen=True)
class ScaleWorld:
    world: World
    plan: Plan
    llvm_commit: str  # the generated LLVM commit (branch `scale` of llvm-project)
    triton_commit: str  # the Triton commit pinning it (branch `scale` of triton)
    llvm_tree: Tree = Tree(0, 0)
    triton_tree: Tree = Tree(0, 0)
    lean_triton_commit: str = ""  # pins the LLVM commit of branch `scale-lean`


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="World Builder",
        GIT_AUTHOR_EMAIL="world@example.invalid",
        GIT_COMMITTER_NAME="World Builder",
        GIT_COMMITTER_EMAIL="world@example.invalid",
        GIT_AUTHOR_DATE=_DATE,
        GIT_COMMITTER_DATE=_DATE,
    )
    return env


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, env=_git_env(), input=stdin, capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}:\n{proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode().strip()


def _data(text: str) -> bytes:
    raw = text.encode()
    return f"data {len(raw)}\n".encode() + raw + b"\n"


@dataclass(frozen=True)
class NewCommit:
    branch: str
    parent: str  # a commit id, or the branch of a commit earlier in the same import
    files: dict[str, str]  # added or replaced
    message: str


def _fast_import(bare: Path, commits: list[NewCommit]) -> list[str]:
    """Commits on branches of the bare repository, by `git fast-import` as one pack (a blob used by
    two commits is written once), without a working tree: writing ~170,000 files and `git add`ing
    them takes minutes on a busy disk, and nothing here needs them on disk. Returns their ids."""
    chunks: list[bytes] = []
    for new in commits:
        parent = new.parent if len(new.parent) == 40 else f"refs/heads/{new.parent}"
        chunks += [
            f"commit refs/heads/{new.branch}\ncommitter World Builder <world@example.invalid> "
            "1767225600 +0000\n".encode(),
            _data(new.message),
            f"from {parent}\n".encode(),
        ]
        for path, text in sorted(new.files.items()):
            if any(c in path for c in '\n"\\') or path.startswith(("/", " ")):
                raise ValueError(f"{path!r} would need quoting in a fast-import stream")
            chunks += [f"M 100644 inline {path}\n".encode(), _data(text)]
    _git(bare, "fast-import", "--quiet", stdin=b"".join(chunks) + b"done\n")
    _git(bare, "update-server-info")
    return [_git(bare, "rev-parse", f"refs/heads/{new.branch}") for new in commits]


def _tracked(bare: Path, commit: str) -> list[str]:
    return [p for p in _git(bare, "ls-tree", "-r", "-z", "--name-only", commit).split("\0") if p]


def _filler(
    bare: Path, parent: str, files: dict[str, str], areas: tuple[shape.Area, ...], label: str
) -> tuple[dict[str, str], Tree]:
    """The filler that gives the checkout of `parent` plus `files` upstream's files and folders."""
    tracked = set(_tracked(bare, parent)) | set(files)
    filler = shape.filler(sorted(tracked), areas, label)
    everything = tracked | set(filler)
    return filler, Tree(len(everything), len(shape.folders_of(everything)))


def _appended(bare: Path, commit: str, appendix: dict[str, str]) -> dict[str, str]:
    """Files of `commit` with text appended to each."""
    return {path: _git(bare, "cat-file", "blob", f"{commit}:{path}") + "\n" + text for path, text in appendix.items()}


def _library_files(lib: sources.Library, cmake_text: str) -> dict[str, str]:
    files = {
        f"{lib.directory}/CMakeLists.txt": cmake_text,
        f"{lib.directory}/{lib.name}.td": sources.ops_td(lib),
        f"{lib.directory}/{lib.name}Registry.cpp": sources.registry(lib),
    }
    for i, stem in enumerate(lib.units):
        files[f"{lib.directory}/{stem}.cpp"] = sources.unit(lib, i)
    for stem in lib.heavy:
        files[f"{lib.directory}/{stem}.cpp"] = sources.heavy_unit(lib, stem)
    files.update(layers.test_files(lib))
    return files


def llvm_files(plan: Plan) -> dict[str, str]:
    """Everything the scale commit adds to llvm-project (the appended CMake lines are separate)."""
    files = {
        "llvm/cmake/modules/TableGen.cmake": cmake.TABLEGEN_CMAKE,
        "llvm/utils/TableGen/CMakeLists.txt": cmake.TBLGEN_CMAKE,
        "llvm/utils/TableGen/llvm-tblgen.cpp": (sources.TEMPLATES / "llvm-tblgen.cpp").read_text(),
        "llvm/include/llvm/IR/Intrinsics.td": sources.intrinsics_td(),
        "llvm/include/llvm/IR/Intrinsics.h": sources.intrinsics_h(),
        "llvm/cmake/modules/LitSuites.cmake": layers.LIT_SUITES_CMAKE,
        **layers.header_files(),
        **layers.test_suite_files("llvm", "FileCheck not opt llvm-as"),
        **layers.test_suite_files("mlir", "FileCheck mlir-opt"),
    }
    llvm_libs, mlir_libs = plan.of("llvm"), plan.of("mlir")
    for lib in llvm_libs:
        files.update(_library_files(lib, cmake.llvm_library(lib)))
        files[f"llvm/include/{lib.include}/{lib.name}.h"] = sources.header(lib)
    for lib in mlir_libs:
        files.update(_library_files(lib, cmake.mlir_library(lib)))
        files[f"mlir/include/{lib.include}/{lib.name}.h"] = sources.header(lib)
    for tool in LLVM_TOOLS:
        files[f"llvm/tools/{tool}/CMakeLists.txt"] = cmake.llvm_tool(tool, llvm_libs)
        files[f"llvm/tools/{tool}/{tool}.cpp"] = sources.tool_main(tool, llvm_libs, with_targets=True)
    for tool in MLIR_TOOLS:
        files[f"mlir/tools/{tool}/CMakeLists.txt"] = cmake.mlir_tool(tool, mlir_libs)
        files[f"mlir/tools/{tool}/{tool}.cpp"] = sources.tool_main(tool, mlir_libs, with_targets=False)
    return files


def triton_files(plan: Plan) -> dict[str, str]:
    libs = plan.of("triton")
    files: dict[str, str] = {}
    for lib in libs:
        files.update(_library_files(lib, cmake.triton_library(lib)))
        files[f"include/{lib.include}/{lib.name}.h"] = sources.header(lib)
    for tool in TRITON_TOOLS:
        files[f"bin/{tool}.cpp"] = sources.tool_main(tool, libs, with_targets=False)
    return files


def _add_llvm(world: World, plan: Plan) -> tuple[str, str, Tree]:
    """(full commit, lean commit, the full one's checkout): lean has only the filler a build reads."""
    bare = world.bare["llvm-project"]
    generated = {
        **llvm_files(plan),
        **_appended(
            bare,
            world.llvm_commit,
            {
                "llvm/lib/CMakeLists.txt": cmake.llvm_lib_appendix(plan),
                "llvm/tools/CMakeLists.txt": cmake.llvm_tools_appendix(),
                "mlir/CMakeLists.txt": cmake.mlir_appendix(plan),
            },
        ),
    }
    filler, tree = _filler(bare, world.llvm_commit, generated, shape.LLVM_AREAS, "llvm-project")
    read = {path: text for path, text in filler.items() if path.startswith(shape.READ_BY_THE_BUILD)}
    rest = {path: text for path, text in filler.items() if path not in read}
    subject = f"[Bench] LLVM-sized tree: {plan.units} generated translation units"
    lean, full = _fast_import(
        bare,
        [
            NewCommit(LEAN_BRANCH, world.llvm_commit, {**generated, **read}, f"{subject}, the test folders' files"),
            NewCommit(BRANCH, LEAN_BRANCH, rest, f"{subject}, llvm-project's files and folders"),
        ],
    )
    return full, lean, tree


def _add_triton(world: World, plan: Plan, llvm: dict[str, str]) -> tuple[list[str], Tree]:
    """A Triton commit per (branch -> LLVM commit it pins), each with Triton's files and folders."""
    bare, main = world.bare["triton"], world.triton_commits["main"]
    generated = {
        **triton_files(plan),
        **_appended(
            bare,
            main,
            {
                "CMakeLists.txt": cmake.triton_appendix(plan),
                "bin/CMakeLists.txt": cmake.triton_tools(plan.of("triton")),
            },
        ),
    }
    filler, tree = _filler(bare, main, generated, shape.TRITON_AREAS, "triton")
    info = json.loads(_git(bare, "cat-file", "blob", f"{main}:cmake/llvm-info.json"))
    commits = []
    for branch, llvm_commit in llvm.items():
        pin = json.dumps({**info, "llvm_hash": llvm_commit}, indent=2) + "\n"
        commits.append(
            NewCommit(
                branch,
                main,
                {**generated, **filler, "cmake/llvm-info.json": pin},
                "[BUILD] Bump LLVM to the LLVM-sized tree; Triton-sized libraries",
            )
        )
    return _fast_import(bare, commits), tree


def add_scale(world: World, plan: Plan) -> ScaleWorld:
    llvm_commit, lean_llvm, llvm_tree = _add_llvm(world, plan)
    (triton_commit, lean_triton), triton_tree = _add_triton(world, plan, {BRANCH: llvm_commit, LEAN_BRANCH: lean_llvm})
    return ScaleWorld(world, plan, llvm_commit, triton_commit, llvm_tree, triton_tree, lean_triton)


def build_scale_world(root: Path, units: int = sources.DEFAULT_UNITS) -> ScaleWorld:
    return add_scale(build_world(root), sources.plan(units))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path)
    parser.add_argument("--units", type=int, default=sources.DEFAULT_UNITS)
    args = parser.parse_args()
    scale = build_scale_world(args.root, args.units)
    print(
        json.dumps(
            {
                "git_root": str(scale.world.git_root),
                "llvm_commit": scale.llvm_commit,
                "triton_commit": scale.triton_commit,
                "units": args.units,
                "llvm_checkout": scale.llvm_tree.describe(),
                "triton_checkout": scale.triton_tree.describe(),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
