"""`compile --signature` in upstream's positional form (as `python -m triton.tools.compile` takes it), and a
missing or partial signature answered with this kernel's own argument list. Real Triton 3.9 wheel."""

from __future__ import annotations

from pathlib import Path

from tests.integration.kernels.conftest import RunCli

FULL = (
    "add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): "
    '--signature "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32"'
)


def test_the_positional_form_compiles_what_the_named_form_does(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    ref = f"{kernel_file}::add_kernel"
    common = ["-t", "cuda:90", "--python", str(triton_python)]
    positional = tdv(
        "compile", ref, "--signature", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", "-o", str(tmp_path / "p"), *common
    )
    assert positional.returncode == 0, positional.stderr
    named = tdv(
        "compile",
        ref,
        "--signature",
        "x_ptr=*fp32:16,y_ptr=*fp32:16,out_ptr=*fp32:16,n=i32",
        "--constexpr",
        "BLOCK=1024",
        "-o",
        str(tmp_path / "n"),
        *common,
    )
    assert named.returncode == 0, named.stderr
    for stage in ("ttir", "ptx"):
        a = (tmp_path / "p" / "cuda-90" / f"add_kernel.{stage}").read_text()
        b = (tmp_path / "n" / "cuda-90" / f"add_kernel.{stage}").read_text()
        assert a == b, stage
    assert "tt.divisibility = 16" in (tmp_path / "p" / "cuda-90" / "add_kernel.ttir").read_text()
    # Positions first, then --constexpr for the arguments after them.
    mixed = tdv(
        "compile",
        ref,
        "--signature",
        "*fp32, *fp32, *fp32, i32",
        "--constexpr",
        "BLOCK=256",
        "-o",
        str(tmp_path / "m"),
        *common,
    )
    assert mixed.returncode == 0, mixed.stderr


def test_no_signature_prints_the_kernels_own_argument_list(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    proc = tdv(
        "compile",
        f"{kernel_file}::add_kernel",
        "-t",
        "cuda:90",
        "-o",
        str(tmp_path / "o"),
        "--python",
        str(triton_python),
    )
    assert proc.returncode == 2, proc.stderr
    assert "--signature gives no type for x_ptr, y_ptr, out_ptr, n of add_kernel" in proc.stderr
    assert f"fix: {FULL} --constexpr BLOCK=VALUE" in proc.stderr, proc.stderr
    assert not (tmp_path / "o").exists()


def test_a_partial_or_long_positional_signature_gets_the_full_list(
    tdv: RunCli, triton_python: Path, kernel_file: Path, tmp_path: Path
) -> None:
    ref = f"{kernel_file}::add_kernel"
    partial = tdv(
        "compile",
        ref,
        "-s",
        "*fp32:16, *fp32",
        "-t",
        "cuda:90",
        "-o",
        str(tmp_path / "o"),
        "--python",
        str(triton_python),
    )
    assert partial.returncode == 2
    wanted = (
        "add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): --signature "
        '"x_ptr=*fp32:16,y_ptr=*fp32,out_ptr=*fp32,n=i32" --constexpr BLOCK=VALUE'
    )
    assert wanted in partial.stderr, partial.stderr
    long = tdv(
        "compile",
        ref,
        "-s",
        "*fp32, *fp32, *fp32, i32, 1024, 7",
        "-t",
        "cuda:90",
        "-o",
        str(tmp_path / "o"),
        "--python",
        str(triton_python),
    )
    assert long.returncode == 2
    assert "--signature has 6 entries; add_kernel takes 5 arguments" in long.stderr and FULL in long.stderr
    assert not (tmp_path / "o").exists()
