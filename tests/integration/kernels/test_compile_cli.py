"""`tritondev compile` against the real triton 3.9.0 wheel: four targets, every stage, SASS, resources.

No GPU is needed: Triton compiles for any target on the CPU, and the SASS comes from Triton's
bundled nvdisasm. Resource summaries are checked against Triton's own metadata.json and, for
registers and threads, against the cubin's ELF attributes read independently (elfinfo.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bootstrap.kernels.usage import parse_amdgcn_info
from tests.integration.kernels import elfinfo
from tests.integration.kernels.conftest import RunCli, bare_venv
from tests.integration.kernels.kernels_src import ADD_SIGNATURE, MATMUL_CONSTEXPRS, MATMUL_SIGNATURE
from tests.support.cli import tritondev_argv

TARGETS = ("cuda:80", "cuda:90", "cuda:120", "hip:gfx942")
# The `compile --json` report (untyped JSON) and the folder it wrote into.
Compiled = tuple[dict[str, Any], Path]
CUDA_STAGES = ("ttir", "ttgir", "llir", "ptx", "cubin", "sass")
HIP_STAGES = ("ttir", "ttgir", "llir", "amdgcn", "hsaco")


def _number(pattern: str, text: str) -> int:
    """The number `pattern`'s group 1 finds in `text` (the assembly must state it)."""
    found = re.search(pattern, text)
    assert found is not None, f"no {pattern!r} in the assembly"
    return int(found.group(1))


@pytest.fixture(scope="module")
def compiled(tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    out = tmp_path_factory.mktemp("out")
    args = ["compile", f"{kernel_file}::matmul_kernel", "--signature", MATMUL_SIGNATURE, *MATMUL_CONSTEXPRS]
    for target in TARGETS:
        args += ["--target", target]
    proc = tdv(*args, "--num-warps", "8", "--out", str(out), "--python", str(triton_python), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), out


def test_every_stage_and_sass_for_each_target(compiled: Compiled) -> None:
    report, out = compiled
    assert report["ok"] is True and report["triton_version"] == "3.9.0"
    assert [t["target"] for t in report["targets"]] == list(TARGETS)
    for entry in report["targets"]:
        folder = out / entry["target"].replace(":", "-")
        assert Path(entry["folder"]) == folder
        stages = CUDA_STAGES if entry["target"].startswith("cuda") else HIP_STAGES
        for stage in stages:
            path = folder / f"matmul_kernel.{stage}"
            assert path.is_file() and path.stat().st_size > 0, path
            assert entry["files"][stage] == str(path)
        assert json.loads((folder / "metadata.json").read_text())["name"] == "matmul_kernel"
        # Only Triton's own notice (3.9 warns that FP fusion's default changes in 3.10).
        assert all("TRITON_DEFAULT_FP_FUSION" in w for w in entry["warnings"]), entry["warnings"]
    for arch in (80, 90, 120):
        sass = (out / f"cuda-{arch}" / "matmul_kernel.sass").read_text()
        # The header names the architecture (".target sm_90a", or "EF_CUDA_SM80" in the ELF flags).
        assert re.search(rf"(\.target\s+sm_{arch}a?\b|EF_CUDA_SM{arch}\b)", sass), sass[:300]
        assert "matmul_kernel:" in sass and re.search(r"\bEXIT\b", sass)
        # Tensor-core instructions of each generation: HMMA (Ampere), HGMMA (Hopper), HMMA/QMMA on sm_120.
        assert re.search(r"\bH(G)?MMA\b", sass)
    assert "HGMMA" in (out / "cuda-90" / "matmul_kernel.sass").read_text()
    assert (out / "hip-gfx942" / "matmul_kernel.hsaco").read_bytes()[:4] == b"\x7fELF"
    assert "v_mfma" in (out / "hip-gfx942" / "matmul_kernel.amdgcn").read_text()


def test_resource_summaries_match_metadata(compiled: Compiled) -> None:
    report, _ = compiled
    for entry in report["targets"]:
        folder = Path(entry["folder"])
        metadata = json.loads((folder / "metadata.json").read_text())
        res = entry["resources"]
        assert res["num_warps"] == metadata["num_warps"] == 8
        assert res["num_stages"] == metadata["num_stages"]
        assert res["threads"] == metadata["num_warps"] * metadata["warp_size"]
        if entry["target"].startswith("cuda"):
            cubin = folder / "matmul_kernel.cubin"
            assert res["shared_bytes"] == metadata["shared"] > 0
            assert res["registers"] == elfinfo.registers(cubin)
            assert res["threads"] == elfinfo.max_threads(cubin, "matmul_kernel") == 256
            assert res["spills"] is not None and res["spills"] == res["local_bytes"] // 4
        else:
            text = (folder / "matmul_kernel.amdgcn").read_text()
            assert res["lds_bytes"] == metadata["shared"] > 0
            assert res["threads"] == 512
            next_free = _number(r"\.amdhsa_next_free_vgpr\s+(\d+)", text)
            assert res["vgprs"] is not None and 0 < res["vgprs"] <= next_free
            assert res["sgpr_spills"] == _number(r"\.sgpr_spill_count:\s+(\d+)", text)
            assert res["occupancy"] == parse_amdgcn_info(text)["occupancy"] >= 1


def test_human_output_and_recompile_replaces_own_folder(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    args = ["compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=256", "-t", "cuda:90", "-t",
            "hip:gfx942", "-o", str(out), "--python", str(triton_python)]  # fmt: skip
    first = tdv(*args)
    assert first.returncode == 0, first.stderr
    assert re.search(r"cuda:90\s+registers \d+\s+spills 0\s+shared \d+ B\s+threads 128", first.stdout)
    assert re.search(r"hip:gfx942\s+VGPRs \d+\s+SGPRs \d+", first.stdout)
    assert "SASS by" in first.stderr and "triton/backends/nvidia/bin/nvdisasm" in first.stderr
    stale = out / "cuda-90" / "stale.txt"
    stale.write_text("from an earlier compile")
    again = tdv(*args)
    assert again.returncode == 0, again.stderr
    assert not stale.exists() and (out / "cuda-90" / "add_kernel.sass").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary folders left


def test_refuses_to_replace_a_folder_it_did_not_write(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "cuda-90"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=256", "-t", "cuda:90",
               "-o", str(tmp_path), "--python", str(triton_python))  # fmt: skip
    assert proc.returncode == 2
    assert "not written by tritondev compile" in proc.stderr
    assert (mine / "notes.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    ("signature", "target", "says", "fix_says"),
    [
        ("x_ptr=*fp33,y_ptr=*fp32,out_ptr=*fp32,n=i32", "cuda:90", "unknown type '*fp33'", "fp16, bf16, fp32"),
        ("x_ptr=*fp32 y_ptr=*fp32", "cuda:90", "unknown type", "valid types"),
        ("x_ptr,n=i32", "cuda:90", "'x_ptr' is not name=type", "x_ptr=*fp32"),
        (ADD_SIGNATURE, "cuda:ampere", "unknown target 'cuda:ampere'", "hip:gfx942"),
        (ADD_SIGNATURE, "opencl:1", "backend 'opencl'", "cuda:90"),
    ],
)
def test_bad_signature_or_target_exit_2_before_anything_runs(
    tdv: RunCli, kernel_file: Path, tmp_path: Path, signature: str, target: str, says: str, fix_says: str
) -> None:
    out = tmp_path / "out"
    # The target python does not exist: these errors must be found before it would be needed.
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", signature, "-t", target, "-o", str(out),
               "--python", str(tmp_path / "no-python"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr and fix_says in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


@pytest.mark.parametrize(
    ("ref", "extra", "says", "fix_says"),
    [
        ("missing.py::add_kernel", [], "does not exist", "FILE.py::KERNEL"),
        ("{file}", [], "names no kernel", "FILE.py::KERNEL"),
        (
            "{file}::nope",
            [],
            "has no kernel named 'nope' (its @triton.jit kernels: add_kernel, broken_kernel, matmul_kernel)",
            "",
        ),
        ("{file}::not_a_kernel", [], "is not a @triton.jit kernel", ""),
        (
            "{file}::add_kernel",
            ["-s", "x_ptr=*fp32,y_ptr=*fp32"],
            "gives no type for out_ptr, n",
            "out_ptr=*fp32,n=i32",
        ),
        ("{file}::add_kernel", ["-s", ADD_SIGNATURE + ",z=i32"], "has no argument z", ""),
        ("{file}::add_kernel", ["-s", ADD_SIGNATURE + ",BLOCK=i32"], "BLOCK of add_kernel is a tl.constexpr", ""),
    ],
)
def test_bad_kernel_reference_or_arguments_exit_2(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path, ref: str, extra: list[str], says: str,
    fix_says: str,
) -> None:  # fmt: skip
    out = tmp_path / "out"
    args = extra or ["-s", ADD_SIGNATURE, "-c", "BLOCK=256"]
    if ref.startswith("{file}::add_kernel") and "BLOCK=i32" not in " ".join(args):
        args = [*args, "-c", "BLOCK=256"]
    proc = tdv("compile", ref.format(file=kernel_file), *args, "-t", "cuda:90", "-o", str(out),
               "--python", str(triton_python), "--json")  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr and fix_says in proc.stderr
    assert json.loads(proc.stdout)["exit_code"] == 2  # one JSON document, even for errors
    assert "Traceback" not in proc.stderr and not out.exists()


def test_missing_constexpr_value(tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path) -> None:
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-t", "cuda:90", "-o", str(tmp_path),
               "--python", str(triton_python))  # fmt: skip
    assert proc.returncode == 2
    assert "tl.constexpr BLOCK of add_kernel has no value" in proc.stderr and "--constexpr BLOCK=VALUE" in proc.stderr


def test_compiler_error_exits_4_with_tritons_message(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    proc = tdv("compile", f"{kernel_file}::broken_kernel", "-s", "x_ptr=*fp32,n=i32", "-c", "BLOCK=64", "-t",
               "cuda:90", "-o", str(tmp_path / "o"), "--python", str(triton_python))  # fmt: skip
    assert proc.returncode == 4, proc.stderr
    assert "Triton failed to compile broken_kernel for cuda:90" in proc.stderr
    assert "undefined_name" in proc.stderr and "Traceback (most recent call last)" not in proc.stderr


def test_ptxas_that_does_not_know_the_arch_exits_4_with_its_message(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=256", "-t", "cuda:99",
               "-t", "cuda:80", "-o", str(out), "--python", str(triton_python), "--json")  # fmt: skip
    assert proc.returncode == 4
    report = json.loads(proc.stdout)
    failed, passed = report["targets"]
    assert failed["ok"] is False and any("Value 'sm_99a' is not defined" in line for line in failed["tail"])
    assert passed["ok"] is True and (out / "cuda-80" / "add_kernel.sass").is_file()  # the others still compile
    human = tdv("compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=256", "-t", "cuda:99",
                "-o", str(out), "--python", str(triton_python))  # fmt: skip
    assert human.returncode == 4
    assert "Value 'sm_99a' is not defined for option 'gpu-name'" in human.stderr
    # No toolkit ptxas knows sm_99a either: the fix names the variable this Triton reads for the arch.
    assert "fix: no ptxas on this machine knows sm_99a" in human.stderr
    assert "TRITON_PTXAS_BLACKWELL_PATH" in human.stderr


def test_target_without_triton_exits_3_with_the_pip_fix(tdv: RunCli, kernel_file: Path, tmp_path: Path) -> None:
    bare = bare_venv(tmp_path / "bare")
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", ADD_SIGNATURE, "-c", "BLOCK=256", "-t", "cuda:90",
               "-o", str(tmp_path / "o"), "--python", str(bare))  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert "triton is not installed" in proc.stderr
    assert f"{bare} -m pip install triton" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_older_triton_with_constants_argument(tdv: RunCli, kernel_file: Path, tmp_path: Path) -> None:
    """Triton 3.2's ASTSource takes constants= and leaves constexprs out of the signature."""
    from tests.support.venvs import shared_venv

    py = shared_venv("triton-3.2.0", ["triton==3.2.0"])
    proc = tdv("compile", f"{kernel_file}::add_kernel", "-s", "x_ptr=*fp32:16,y_ptr=*fp32,out_ptr=*fp32,n=i32:16",
               "-c", "BLOCK=256", "-t", "cuda:80", "-t", "hip:gfx942", "-o", str(tmp_path), "--python", str(py),
               "--json")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["triton_version"] == "3.2.0"
    ttir = (tmp_path / "cuda-80" / "add_kernel.ttir").read_text()
    assert ttir.count("tt.divisibility = 16") == 2  # both hints reached the compiler
    assert (tmp_path / "cuda-80" / "add_kernel.sass").is_file()
    assert (tmp_path / "hip-gfx942" / "add_kernel.hsaco").is_file()


def test_help_is_fast_and_lists_the_options() -> None:
    import subprocess

    proc = subprocess.run(tritondev_argv("compile", "--help"), capture_output=True, text=True)
    assert proc.returncode == 0
    for option in ("--signature", "--constexpr", "--target", "--out", "--json", "--python"):
        assert option in proc.stdout
