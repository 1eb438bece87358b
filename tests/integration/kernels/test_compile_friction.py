"""`tritondev compile` where it used to cost a new user time: Triton's own warnings, a kernel file that
exits or fails at import, an @triton.autotune kernel, SASS for an arch the bundled nvdisasm cannot
decode, resource figures that agree with `cache ls`, and ~/.triton left alone. Real Triton wheels."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.integration.kernels.conftest import RunCli
from tests.integration.kernels.kernels_src import ADD_SIGNATURE, KERNELS, MATMUL_SIGNATURE
from tests.support.cli import tritondev_argv
from tests.support.venvs import shared_venv

ADD = ["compile", "my_kernels.py::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=1024"]

# The matmul kernel of KERNELS again, as an @triton.autotune kernel with three configs.
_MATMUL = KERNELS[KERNELS.index("@triton.jit\ndef matmul_kernel") : KERNELS.index("@triton.jit\ndef broken_kernel")]
AUTOTUNED = (
    KERNELS
    + """

@triton.autotune(configs=[
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=4, num_stages=1, maxnreg=32),
], key=["M", "N", "K"])
"""
    + _MATMUL.replace("def matmul_kernel", "def tuned_matmul")
)


def _json(proc: Any) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _targets(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["target"]: t for t in data["targets"]}


def test_tritons_own_warnings_are_shown(tdv: RunCli, triton_python: Path, tmp_path: Path) -> None:
    """Triton 3.9 warns that FP fusion (FMAs in the SASS being inspected) changes default in 3.10."""
    proc = tdv(*ADD, "-t", "cuda:90", "--python", str(triton_python), "--out", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    assert "warning: cuda:90: UserWarning: TRITON_DEFAULT_FP_FUSION is unset" in proc.stderr
    data = _json(tdv(*ADD, "-t", "cuda:90", "--python", str(triton_python), "--out", str(tmp_path / "b"), "--json"))
    assert any("TRITON_DEFAULT_FP_FUSION" in w for w in _targets(data)["cuda:90"]["warnings"])
    quiet = _json(
        tdv(
            *ADD,
            "-t",
            "cuda:90",
            "--python",
            str(triton_python),
            "--out",
            str(tmp_path / "c"),
            "--json",
            env={"TRITON_DEFAULT_FP_FUSION": "1"},
        )
    )
    assert _targets(quiet)["cuda:90"]["warnings"] == []


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("import sys\nsys.exit(3)\n", "called sys.exit(3) while tritondev imported it"),
        ("raise RuntimeError('no GPU here')\n", "failed to import: RuntimeError: no GPU here"),
        ("import os\nos._exit(5)\n", "ended the process while tritondev imported it (exit status 5)"),
    ],
)
def test_a_kernel_file_that_exits_or_fails_at_import_is_named(
    tdv: RunCli, triton_python: Path, tmp_path: Path, body: str, needle: str
) -> None:
    script = tmp_path / "script_kernels.py"
    script.write_text(KERNELS + "\n" + body)
    proc = tdv(
        "compile",
        f"{script}::add_kernel",
        "-s",
        ADD_SIGNATURE,
        "-c",
        "BLOCK=1024",
        "-t",
        "cuda:90",
        "--python",
        str(triton_python),
        "--out",
        str(tmp_path / "out"),
    )
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr and "fix:" in proc.stderr
    assert "compiler died" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_autotuned_kernel_offers_its_configs(tdv: RunCli, triton_python: Path, tmp_path: Path) -> None:
    source = tmp_path / "tuned.py"
    source.write_text(AUTOTUNED)
    base = [
        "compile",
        f"{source}::tuned_matmul",
        "-s",
        MATMUL_SIGNATURE,
        "-t",
        "cuda:80",
        "--python",
        str(triton_python),
    ]
    missing = tdv(*base, "--out", str(tmp_path / "none"))
    assert missing.returncode == 2, missing.stderr
    assert "@triton.autotune'd with 3 config(s)" in missing.stderr
    assert "--config 0: BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=2" in missing.stderr
    assert "--config 2: BLOCK_M=128" in missing.stderr and "maxnreg=32" in missing.stderr
    wrong = tdv(*base, "--config", "7", "--out", str(tmp_path / "wrong"))
    assert wrong.returncode == 2 and "no config 7" in wrong.stderr, wrong.stderr
    chosen = _json(tdv(*base, "--config", "1", "--json", "--out", str(tmp_path / "one")))
    assert chosen["autotune"]["config"] == 1 and len(chosen["autotune"]["configs"]) == 3
    resources = _targets(chosen)["cuda:80"]["resources"]
    assert resources["num_warps"] == 8 and resources["num_stages"] == 3 and resources["threads"] == 256
    # --num-warps still wins over the config's.
    mine = _json(tdv(*base, "--config", "1", "--num-warps", "4", "--json", "--out", str(tmp_path / "mine")))
    assert _targets(mine)["cuda:80"]["resources"]["num_warps"] == 4
    plain = tdv(
        "compile",
        f"{source}::add_kernel",
        "-s",
        ADD_SIGNATURE,
        "-c",
        "BLOCK=64",
        "-t",
        "cuda:80",
        "--config",
        "0",
        "--python",
        str(triton_python),
        "--out",
        str(tmp_path / "plain"),
    )
    assert plain.returncode == 2 and "is not @triton.autotune'd" in plain.stderr


def test_spills_agree_with_cache_ls(tdv: RunCli, triton_python: Path, tmp_path: Path) -> None:
    """A config capped at 32 registers spills; compile and `cache ls` give the same figure (Triton's n_spills)."""
    source = tmp_path / "tuned.py"
    source.write_text(AUTOTUNED)
    cache = tmp_path / "cache"
    data = _json(
        tdv(
            "compile",
            f"{source}::tuned_matmul",
            "-s",
            MATMUL_SIGNATURE,
            "-t",
            "cuda:80",
            "--config",
            "2",
            "--python",
            str(triton_python),
            "--json",
            "--out",
            str(tmp_path / "out"),
            env={"TRITON_CACHE_DIR": str(cache)},
        )
    )
    resources = _targets(data)["cuda:80"]["resources"]
    assert resources["registers"] == 32 and resources["spills"] > 0, resources
    assert resources["spills"] == resources["local_bytes"] // 4
    listing = _json(tdv("cache", "ls", "--dir", str(cache), "--python", str(triton_python), "--json"))
    (entry,) = [e for e in listing["entries"] if e["name"] == "tuned_matmul"]
    assert (entry["n_regs"], entry["n_spills"]) == (resources["registers"], resources["spills"])


def test_compile_leaves_the_users_triton_cache_alone(
    triton_python: Path, tmp_path: Path, kernel_env: dict[str, str]
) -> None:
    """No TRITON_CACHE_DIR set: the compile uses a private cache, and ~/.triton is not even created."""
    from tests.conftest import run_cli

    home = tmp_path / "home"
    home.mkdir()
    source = tmp_path / "k.py"
    source.write_text(KERNELS)
    env = {**{k: v for k, v in kernel_env.items() if k != "TRITON_CACHE_DIR"}, "HOME": str(home)}
    proc = run_cli(
        "compile",
        f"{source}::add_kernel",
        "-s",
        ADD_SIGNATURE,
        "-c",
        "BLOCK=1024",
        "-t",
        "cuda:90",
        "-t",
        "hip:gfx942",
        "--python",
        str(triton_python),
        "--out",
        str(tmp_path / "out"),
        "--json",
        env=env,
        cwd=tmp_path,
    )
    data = _json(proc)
    assert data["ok"] and "temporary" in data["triton_cache_dir"]
    assert os.listdir(home) == [], "compile wrote into HOME"


def test_rdna_has_no_agprs(tdv: RunCli, triton_python: Path, tmp_path: Path) -> None:
    proc = tdv(
        *ADD, "-t", "hip:gfx1100", "-t", "hip:gfx942", "--python", str(triton_python), "--out", str(tmp_path / "out")
    )
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip().startswith("hip:")}
    assert "AGPRs" not in lines["hip:gfx1100"] and "?" not in lines["hip:gfx1100"]
    assert "AGPRs 0" in lines["hip:gfx942"]


def test_sass_for_an_arch_the_bundled_nvdisasm_cannot_decode(tdv: RunCli, tmp_path: Path) -> None:
    """Triton 3.5.1 bundles nvdisasm 12.8, which cannot decode sm_121a; the toolkit's (here $CUDA_HOME,
    holding a 13.x nvdisasm) can. The cubin comes from 3.5.1 with a 13.x ptxas, the upstream recipe
    for sm_121 (TRITON_PTXAS_PATH)."""
    old = shared_venv("triton-3.5.1", ["triton==3.5.1"])
    new = shared_venv("triton-3.9", ["triton==3.9.0", "numpy", "torch==2.13.0"])
    new_bin = next(new.parent.parent.glob("lib/python3*/site-packages/triton/backends/nvidia/bin"))
    toolkit = tmp_path / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "bin" / "nvdisasm").symlink_to(new_bin / "nvdisasm")
    data = _json(
        tdv(
            *ADD,
            "-t",
            "cuda:121",
            "--python",
            str(old),
            "--out",
            str(tmp_path / "out"),
            "--json",
            env={"TRITON_PTXAS_PATH": str(new_bin / "ptxas-blackwell"), "CUDA_HOME": str(toolkit)},
        )
    )
    target = _targets(data)["cuda:121"]
    assert target["ok"] and "sass" in target["files"], target
    assert target["sass_by"] == str(toolkit / "bin" / "nvdisasm")
    assert data["nvdisasm"] != target["sass_by"]  # Triton's own was tried first
    assert any("Cannot decode architecture" in note for note in target["notes"]), target["notes"]
    assert target["warnings"] == [] or all("nvdisasm" not in w for w in target["warnings"])
    sass = Path(target["files"]["sass"]).read_text()
    assert ".target\tsm_121a" in sass and ".text.add_kernel" in sass


def test_cache_show_of_a_cubin_names_an_nvdisasm_that_exists(
    tdv: RunCli, triton_python: Path, tmp_path: Path, kernel_env: dict[str, str]
) -> None:
    """On a terminal a cubin is refused with a disassembler to use: one that is there, not a bare name."""
    import pty
    import subprocess

    cache = tmp_path / "cache"
    _json(
        tdv(
            *ADD,
            "-t",
            "cuda:90",
            "--python",
            str(triton_python),
            "--out",
            str(tmp_path / "out"),
            "--json",
            env={"TRITON_CACHE_DIR": str(cache)},
        )
    )
    main, child = pty.openpty()
    proc = subprocess.run(
        tritondev_argv("cache", "show", "add_kernel", "cubin", "--dir", str(cache), "--python", str(triton_python)),
        stdout=child,
        stderr=subprocess.PIPE,
        text=True,
        env=kernel_env,
        timeout=120,
    )
    os.close(child)
    os.close(main)
    assert proc.returncode == 2, proc.stderr
    fix = proc.stderr.split("fix:", 1)[1].replace("\n", " ")
    tool = fix.split("disassemble it: ", 1)[1].split()[0]
    assert Path(tool).is_file() and os.access(tool, os.X_OK), fix
