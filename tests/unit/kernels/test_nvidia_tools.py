"""The one lookup of NVIDIA tools (bootstrap/kernels/nvidia_tools.py): Triton's own copy first, then the
machine's toolkits in a fixed order, each file once; what compile, its ptxas retry, doctor's ptxas
check and an offline build all use."""

from __future__ import annotations

import os
from pathlib import Path

from bootstrap.kernels import nvidia_tools


def _tool(folder: Path, name: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_nvidia_tool_order(tmp_path: Path) -> None:
    """Triton's knob and bundled copy first (as Triton chooses), then the toolkit's: $CUDA_HOME,
    /usr/local/cuda, PATH; each file once however it is reached."""
    env_tool = _tool(tmp_path / "env", "nvdisasm")
    bundled = _tool(tmp_path / "triton" / "bin", "nvdisasm")
    on_path = _tool(tmp_path / "path", "nvdisasm")
    cuda = _tool(tmp_path / "cuda" / "bin", "nvdisasm")
    environ = {"TRITON_NVDISASM_PATH": env_tool, "CUDA_HOME": str(tmp_path / "cuda")}
    system = ["/usr/local/cuda/bin/nvdisasm"] if os.access("/usr/local/cuda/bin/nvdisasm", os.X_OK) else []

    def which(name: str) -> str | None:
        return on_path

    tools = nvidia_tools.nvidia_tools("nvdisasm", str(tmp_path / "triton" / "bin"), environ, which)
    assert tools == [env_tool, bundled, cuda, *system, on_path]
    assert nvidia_tools.nvidia_tool("nvdisasm", str(tmp_path / "triton" / "bin"), environ, which) == env_tool
    del environ["TRITON_NVDISASM_PATH"]
    assert nvidia_tools.nvidia_tool("nvdisasm", str(tmp_path / "triton" / "bin"), environ, which) == bundled
    assert nvidia_tools.nvidia_tool("nvdisasm", str(tmp_path / "nowhere"), environ, which) == cuda
    nowhere = str(tmp_path / "nowhere")
    assert nvidia_tools.nvidia_tools("nvdisasm", nowhere, environ, lambda name: cuda) == [cuda, *system]
    os.unlink(cuda)
    if not system:
        assert nvidia_tools.nvidia_tool("nvdisasm", None, environ, which) == on_path
        assert nvidia_tools.nvidia_tool("nvdisasm", None, environ, lambda name: None) is None


def test_the_machines_copies_in_order_and_once(tmp_path: Path) -> None:
    """CUDA_HOME, CUDA_PATH, CUDA_ROOT, /usr/local/cuda, PATH, then the target's wheels (NVIDIA's, newest
    name first, and torch's); a link to a copy already found adds nothing; Triton's knob is not a copy."""
    home, path = _tool(tmp_path / "home" / "bin", "ptxas"), _tool(tmp_path / "path" / "bin", "ptxas")
    root = _tool(tmp_path / "root" / "bin", "ptxas")
    site = tmp_path / "site"
    cu12 = _tool(site / "nvidia" / "cuda_nvcc" / "bin", "ptxas")
    cu13 = _tool(site / "nvidia" / "cu13" / "bin", "ptxas")
    torch = _tool(site / "torch" / "bin", "ptxas")
    (tmp_path / "link").mkdir()
    os.symlink(home, tmp_path / "link" / "ptxas")
    environ = {
        "CUDA_HOME": str(tmp_path / "home"),
        "CUDA_PATH": str(tmp_path / "link" / ".."),
        "CUDA_ROOT": str(tmp_path / "root"),
        "PATH": str(tmp_path / "path" / "bin"),
        "TRITON_PTXAS_PATH": path,
    }
    found = nvidia_tools.toolkit_copies("ptxas", environ, site_packages=[site])
    system = [p for p in found if not p.startswith(str(tmp_path))]
    assert [p for p in found if p.startswith(str(tmp_path))] == [home, root, path, cu12, cu13, torch]
    assert all(p.startswith(("/usr/local/cuda", "/opt/cuda")) for p in system), system


def test_the_toolkit_of_a_build(tmp_path: Path) -> None:
    assert nvidia_tools.toolkit_root({}) == Path("/usr/local/cuda")
    assert nvidia_tools.toolkit_root({"CUDA_PATH": "/c/12.8", "CUDA_ROOT": "/r"}) == Path("/c/12.8")
    assert nvidia_tools.toolkit_root({"CUDA_HOME": "/h", "CUDA_PATH": "/p"}) == Path("/h")
    assert nvidia_tools.toolkit_root({"CUDA_HOME": "", "CUDA_ROOT": "/r"}) == Path("/r")


def test_a_file_that_does_not_run_is_no_copy(tmp_path: Path) -> None:
    folder = tmp_path / "home" / "bin"
    folder.mkdir(parents=True)
    (folder / "ptxas").write_text("not executable")
    (folder / "nvdisasm").mkdir()  # a folder is no tool either
    environ = {"CUDA_HOME": str(tmp_path / "home"), "PATH": ""}
    assert not any(p.startswith(str(tmp_path)) for p in nvidia_tools.toolkit_copies("ptxas", environ))
    assert not any(p.startswith(str(tmp_path)) for p in nvidia_tools.toolkit_copies("nvdisasm", environ))
