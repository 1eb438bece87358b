"""One workspace switched between LLVM sources: Triton's prebuilt package, a source build, a tree of the
user's (--llvm PATH), all at the pinned commit. Each setup starts the Triton build folder from a fresh
CMake cache, and the installed library, asked in a fresh process, is linked with the LLVM just named
(the test world's libtriton reports the build folder of the LLVMSupport it links)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import tritondev
from tests.integration.llvm_sources.conftest import GOOD, PrebuiltWorld, fresh_env, setup_prebuilt
from tests.support.environ import child_environ
from tests.support.venvs import workspace_venv
from tests.world.build import LLVMBuild, build_llvm
from tests.world.packages import PackageServer

pytestmark = pytest.mark.slow
LINKED = "import json, triton\nprint(json.dumps({'commit': triton.llvm_commit(), **triton.llvm_linked()}))\n"


def linked(ws: Path, cwd: Path) -> dict[str, Any]:
    env = child_environ("LLVM_")
    proc = subprocess.run(
        [str(ws / "venv" / "bin" / "python"), "-c", LINKED],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def as_report(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr[-4000:]
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def install_reason(report: dict[str, Any]) -> str:
    return str(next(s for s in report["steps"] if s["step"] == "triton-install")["reason"])


def test_prebuilt_then_source_then_path(
    prebuilt_world: PrebuiltWorld,
    package_server: PackageServer,
    mini_llvm: LLVMBuild,
    shared_ccache: Path,
    tmp_path: Path,
) -> None:
    env = fresh_env(tmp_path, shared_ccache)
    ws, pin = tmp_path / "ws", prebuilt_world.world.llvm_commit
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    first = as_report(setup_prebuilt(prebuilt_world, package_server, ws, GOOD, "--json", env=env))
    said = linked(ws, tmp_path)
    # The package was installed from the session's mini LLVM build: its LLVMSupport names that folder.
    assert said["revision"] == said["commit"] == pin and Path(said["build_tree"]) == mini_llvm.build, said
    assert first["llvm"]["kind"] == "prebuilt"

    common = [
        "setup",
        "--workspace",
        str(ws),
        "--mirror",
        str(prebuilt_world.world.git_root),
        "--triton-commit",
        prebuilt_world.pins[GOOD],
        "--jobs",
        "2",
        "--link-jobs",
        "2",
        "--build-type",
        "Release",
        "--json",
    ]
    source = as_report(tritondev(*common, "--llvm", "source", env=env))
    assert install_reason(source).startswith("LLVM changed: fresh CMake cache"), source["steps"]
    said = linked(ws, tmp_path)
    assert said["revision"] == pin and Path(said["build_tree"]).resolve() == Path(source["llvm_build"]).resolve()

    theirs = build_llvm(
        mini_llvm.source, tmp_path / "their-llvm", env={**env, "CCACHE_BASEDIR": str(mini_llvm.source.parent)}
    )
    given = as_report(tritondev(*common, "--llvm", str(theirs.build), env=env))
    assert install_reason(given).startswith("LLVM changed: fresh CMake cache"), given["steps"]
    said = linked(ws, tmp_path)
    assert said["revision"] == pin and Path(said["build_tree"]) == theirs.build, said
    assert given["verify"]["provenance"]["ok"] is True
