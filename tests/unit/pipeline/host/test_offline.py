"""--offline: what it needs from this machine, by era, and what it places after the install."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from bootstrap.core.errors import ToolMissing, UsageError
from bootstrap.git.layout import AmdLlvm
from bootstrap.git.setup_py import SetupPyArgs
from bootstrap.pipeline.host.offline import excluded_paths, place_tools, plan_offline
from bootstrap.pipeline.host.prerequisites import cmake_notices, lit_notices
from bootstrap.pipeline.host.toolchain import Tool
from tests.unit.pipeline.setup.facts_for_tests import ERAS, toolchain


def cuda_toolkit(root: Path, *, cupti: bool = True) -> Path:
    for tool in ("ptxas", "cuobjdump", "nvdisasm"):
        path = root / "bin" / tool
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\necho {tool}\n")
        path.chmod(0o755)
    (root / "include").mkdir(parents=True, exist_ok=True)
    (root / "include" / "cuda.h").write_text("/* cuda */\n")
    if cupti:
        (root / "extras" / "CUPTI" / "include").mkdir(parents=True)
    return root


def json_headers(root: Path) -> Path:
    (root / "include" / "nlohmann").mkdir(parents=True)
    (root / "include" / "nlohmann" / "json.hpp").write_text("// json\n")
    return root


def test_online_is_the_default_and_unsets_nothing_it_needs() -> None:
    assert plan_offline(False, "nvidia", ERAS["root-json"]) is None


def test_offline_takes_json_and_the_cuda_tools_from_this_machine(tmp_path: Path) -> None:
    environ = {"CUDA_HOME": str(cuda_toolkit(tmp_path / "cuda")), "JSON_SYSPATH": str(json_headers(tmp_path / "j"))}
    build = plan_offline(True, "nvidia", ERAS["root-json"], environ)
    assert build is not None
    env = dict(build.env)
    assert env["TRITON_OFFLINE_BUILD"] == "1" and env["JSON_SYSPATH"] == str(tmp_path / "j")
    assert env["TRITON_PTXAS_PATH"] == str(tmp_path / "cuda/bin/ptxas")
    assert env["TRITON_PTXAS_BLACKWELL_PATH"] == env["TRITON_PTXAS_PATH"]  # this era has a second ptxas
    assert dict(build.place)["bin/ptxas-blackwell"] == env["TRITON_PTXAS_PATH"]
    assert "third_party/nvidia/backend/bin/ptxas" in excluded_paths(build)
    # Before 3.6 (and after 3.3) no ptxas-blackwell: nothing of the kind is placed.
    old = dataclasses.replace(ERAS["python-dir"], setup_args=SetupPyArgs(ptxas_blackwell=False))
    old_build = plan_offline(True, "nvidia", old, environ)
    assert old_build is not None
    assert "bin/ptxas-blackwell" not in dict(old_build.place)
    # amd needs no CUDA: only json.
    amd = plan_offline(True, "amd", ERAS["root-json"], {"JSON_SYSPATH": environ["JSON_SYSPATH"]})
    assert amd is not None and amd.place == () and "TRITON_PTXAS_PATH" not in dict(amd.env)


def test_what_is_missing_is_named(tmp_path: Path) -> None:
    json_root = str(json_headers(tmp_path / "j"))
    with pytest.raises(ToolMissing, match="nlohmann/json"):
        plan_offline(True, "nvidia", ERAS["root-json"], {"JSON_SYSPATH": str(tmp_path / "none")})
    cuda = cuda_toolkit(tmp_path / "cuda", cupti=False)
    with pytest.raises(ToolMissing, match="TRITON_CUPTI_INCLUDE_PATH") as info:
        plan_offline(True, "nvidia", ERAS["root-json"], {"CUDA_HOME": str(cuda), "JSON_SYSPATH": json_root})
    assert info.value.fix is not None and "CUDA_HOME" in info.value.fix
    # Without Proton there is nothing to compile against CUPTI.
    assert (
        plan_offline(
            True,
            "nvidia",
            ERAS["root-json"],
            {"CUDA_HOME": str(cuda), "JSON_SYSPATH": json_root, "TRITON_BUILD_PROTON": "0"},
        )
        is not None
    )
    no_flag = dataclasses.replace(ERAS["python-dir"], setup_args=SetupPyArgs(offline_flag=False))
    with pytest.raises(UsageError, match=r"came in 3\.2"):
        plan_offline(True, "nvidia", no_flag, {})


def test_the_amd_codegen_llvm_offline(tmp_path: Path) -> None:
    environ = {"CUDA_HOME": str(cuda_toolkit(tmp_path / "cuda")), "JSON_SYSPATH": str(json_headers(tmp_path / "j"))}
    layout = dataclasses.replace(ERAS["root-json"], amd_llvm=AmdLlvm("c" * 40, 1, "ROCm/llvm-project", ()))
    nvidia = plan_offline(True, "nvidia", layout, environ)
    assert nvidia is not None and dict(nvidia.env)["TRITON_AMD_CODEGEN_PATH"] == "/dev/null"
    with pytest.raises(ToolMissing, match="AMD codegen library") as info:
        plan_offline(True, "amd", layout, environ)
    assert info.value.fix is not None and "TRITON_AMD_CODEGEN_PATH" in info.value.fix
    given = plan_offline(True, "amd", layout, {**environ, "TRITON_AMD_CODEGEN_PATH": "/opt/amd/lib.so"})
    assert given is not None and dict(given.env)["TRITON_AMD_CODEGEN_PATH"] == "/opt/amd/lib.so"


def test_placing_copies_tools_links_headers_and_is_idempotent(tmp_path: Path) -> None:
    cuda = cuda_toolkit(tmp_path / "cuda")
    environ = {"CUDA_HOME": str(cuda), "JSON_SYSPATH": str(json_headers(tmp_path / "j"))}
    build = plan_offline(True, "nvidia", ERAS["root-json"], environ)
    assert build is not None
    checkout = tmp_path / "triton"
    changed = place_tools(checkout, build)
    backend = checkout / "third_party/nvidia/backend"
    assert (backend / "bin/ptxas").read_text() == (cuda / "bin/ptxas").read_text()
    assert (backend / "bin/ptxas").stat().st_mode & 0o111 and not (backend / "bin/ptxas").is_symlink()
    assert (backend / "include/cuda.h").resolve() == (cuda / "include/cuda.h").resolve()
    assert len(changed) == 5  # four tools, one header link
    assert place_tools(checkout, build) == []  # our own copies: nothing to do
    # A ptxas that upstream's download put there (same size, its own time) is replaced.
    ptxas = backend / "bin/ptxas"
    ptxas.write_text(ptxas.read_text().replace("ptxas", "PTXAS"))
    os.utime(ptxas, ns=(1, 1))
    assert place_tools(checkout, build) == [str(ptxas)]
    assert ptxas.read_text() == (cuda / "bin/ptxas").read_text()


def test_cmake_4_and_lit() -> None:
    cmake4 = dataclasses.replace(toolchain(), cmake=Tool("cmake", "/usr/bin/cmake", "4.1.0"))
    assert "cmake>=3.20,<4.0" in cmake_notices(cmake4, ("setuptools",), None)[0]
    assert cmake_notices(cmake4, ("cmake>=3.20,<4.0",), Path("/ws/venv/bin")) == []  # the target gets cmake<4
    assert cmake_notices(toolchain(), ("setuptools",), None) == []


def test_missing_python_headers_are_named(tmp_path: Path) -> None:
    from bootstrap.pipeline.host.prerequisites import check_python_headers
    from tests.unit.pipeline.setup.facts_for_tests import target_python

    target = dataclasses.replace(target_python(), include=tmp_path, version="3.12.4")
    with pytest.raises(ToolMissing, match="Python development headers") as info:
        check_python_headers(target)
    assert info.value.fix is not None and "python3.12-dev" in info.value.fix
    (tmp_path / "Python.h").write_text("/* */\n")
    check_python_headers(target)


def test_lit_notice_needs_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    from bootstrap.core.process.runner import Runner

    runner = Runner(silent=True)
    # Whether this machine has a lit on PATH is not the test's to choose: the lookup answers "none".
    monkeypatch.setattr(runner, "which", lambda name: None)
    assert lit_notices(runner, ("lit",), None) == []
    assert "pip install lit" in lit_notices(runner, ("setuptools",), None)[0]
