"""Helpers for the build tests: run the real CLI against the test world, read what it did."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.cli import tritondev_argv
from tests.support.environ import child_environ
from tests.support.run_shared import ccache_variables
from tests.world.downloads import fake_nvidia_tool, json_header
from tests.world.world import World

REPO = Path(__file__).resolve().parents[3]
SYSTEM_PTXAS = "12.6.77"  # this machine's CUDA toolkit (fake), older than the one Triton pins (12.8)
SHELL_FUNCTIONS = REPO / "shell" / "triton-dev.sh"
# Tools a PATH "without clang" keeps: everything on PATH except these.
CLANG_NAMES = ("clang", "clang++", "ld.lld", "lld", "clang-")


def base_env(home: Path, *, xdg: Path, ccache_dir: Path, path: str | None = None) -> dict[str, str]:
    """A clean environment (tests.support.environ, and no CCACHE_* nor setup.py's build variables), private
    HOME and cache; the ccache folder given (a private one where the test counts compilations, else the
    run's `warm_ccache()`)."""
    env = {
        k: v
        for k, v in child_environ("CCACHE_").items()
        if k not in ("DEBUG", "REL_WITH_DEB_INFO", "MAX_JOBS", "PYTHONDONTWRITEBYTECODE")
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(REPO), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(ccache_variables(ccache_dir))  # the run's warm ccache (warm_ccache()) is shared by workspaces
    if path is not None:
        env["PATH"] = path
    return env


def path_without_clang(folder: Path) -> str:
    """A PATH of one folder with links to every tool on PATH except clang, clang++ and lld."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not os.path.isdir(directory):
            continue
        for name in sorted(os.listdir(directory)):
            if name.startswith(CLANG_NAMES) or (folder / name).exists() or (folder / name).is_symlink():
                continue
            target = Path(directory) / name
            if target.is_file() and os.access(target, os.X_OK):
                (folder / name).symlink_to(target)
    return str(folder)


def tritondev(
    *args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(tritondev_argv(*args), env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def setup_args(world: World, workspace: Path, label: str, *extra: str) -> list[str]:
    """`setup` for the world's Triton commit `label`, from the world's bare repos as a mirror, building
    the mini LLVM from source (`--llvm source`, unless `extra` names another `--llvm`): these tests are
    about the source build, and the default `auto` would ask Triton's real package host first."""
    llvm = [] if "--llvm" in extra else ["--llvm", "source"]
    return [
        "setup",
        "--workspace",
        str(workspace),
        "--mirror",
        str(world.git_root),
        "--triton-commit",
        world.triton_commits[label],
        "--jobs",
        "2",
        "--link-jobs",
        "2",
        *llvm,
        *extra,
    ]


def setup_json(world: Any, workspace: Path, label: str, *extra: str, env: dict[str, str]) -> dict[str, Any]:
    proc = tritondev(*setup_args(world, workspace, label, *extra, "--json"), env=env)
    assert proc.returncode == 0, f"setup failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


@dataclass(frozen=True)
class Cmd:
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]

    @staticmethod
    def of(item: dict[str, Any]) -> Cmd:
        return Cmd(tuple(item["argv"]), tuple(sorted(item["env"].items())))


def commands(report: dict[str, Any], *steps: str) -> list[Cmd]:
    return [Cmd.of(c) for c in report["commands"] if not steps or c["step"] in steps]


def shell_function_commands(workspace: Path, env: dict[str, str], *functions: str, shell: str = "bash") -> list[Cmd]:
    """What the shell functions run, in their print mode: argv and variables of each command."""
    script = f"source {shlex.quote(str(SHELL_FUNCTIONS))}\n" + "\n".join(f"{f} || exit $?" for f in functions)
    proc = subprocess.run(
        [shell, "-c", script],
        env={**env, "TRITONDEV_WORKSPACE": str(workspace), "TRITON_DEV_PRINT": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for line in proc.stdout.splitlines():
        words = shlex.split(line)
        variables: list[tuple[str, str]] = []
        if words and words[0] == "env":
            words = words[1:]
            while words and (words[0].startswith("-u") or ("=" in words[0] and not words[0].startswith("/"))):
                word = words.pop(0)
                if not word.startswith("-u"):
                    name, value = word.split("=", 1)
                    variables.append((name, value))
        out.append(Cmd(tuple(words), tuple(sorted(variables))))
    return out


def installed_triton(python: Path, cwd: Path) -> dict[str, Any]:
    """Facts from the target itself: version, where triton imports from, what its build recorded."""
    code = (
        "import json, importlib.metadata as m, triton, triton._build_info as b\n"
        "print(json.dumps({'version': m.version('triton'), 'file': triton.__file__, "
        "'llvm_commit': b.llvm_commit, 'build_type': b.build_type, 'llvm_syspath': b.llvm_syspath}))\n"
    )
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=cwd, check=True)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def checkout_state(repo: Path) -> tuple[str, str]:
    """HEAD and `git status --porcelain` (untracked included) of a checkout."""
    return git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain", "--untracked-files=all")


def compile_commands(checkout: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((checkout / "compile_commands.json").read_text())
    return data


def system_cuda_and_json(root: Path) -> dict[str, str]:
    """A CUDA toolkit and nlohmann/json headers on 'this machine': an offline build is possible."""
    cuda = root / "cuda"
    for tool in ("ptxas", "cuobjdump", "nvdisasm"):
        path = cuda / "bin" / tool
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fake_nvidia_tool(tool, SYSTEM_PTXAS))
        path.chmod(0o755)
    (cuda / "include").mkdir()
    (cuda / "include" / "cuda.h").write_text("/* the system's cuda.h */\n")
    (cuda / "extras" / "CUPTI" / "include").mkdir(parents=True)
    header = root / "json" / "include" / "nlohmann" / "json.hpp"
    header.parent.mkdir(parents=True)
    header.write_bytes(json_header())
    return {"CUDA_HOME": str(cuda), "JSON_SYSPATH": str(root / "json")}
