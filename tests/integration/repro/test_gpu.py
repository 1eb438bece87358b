"""On a machine with an NVIDIA GPU, with the system's torch and Triton (torch 2.11 / Triton 3.6 here): Inductor's
kernels and user kernels are captured from real programs, and each standalone repro runs on the GPU.

Every captured kernel's repro must launch through triton.compile at the recorded specialization (never
through Inductor's CachingAutotuner) and match the recorded outputs; a broken kernel reproduces, a correct
one runs clean.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration.repro.conftest import Tdv, json_of, write_program
from tests.integration.repro.programs import ADD, NAN

pytestmark = pytest.mark.gpu

POINTWISE_REDUCTION = """
import torch

f = torch.compile(lambda x, y: torch.relu(x * y + 1.0).sum(dim=-1))
x = torch.randn(256, 16, device="cuda")
y = torch.randn(256, 16, device="cuda")
for _ in range(3):
    r = f(x, y)
torch.testing.assert_close(r, torch.relu(x * y + 1.0).sum(dim=-1))
print("program: ok")
"""

MATMUL = """
import torch

g = torch.compile(lambda a, b: torch.relu(a @ b), mode="max-autotune")
a = torch.randn(256, 128, device="cuda", dtype=torch.float16)
b = torch.randn(128, 192, device="cuda", dtype=torch.float16)
r = g(a, b)
torch.testing.assert_close(r, torch.relu(a @ b), atol=1e-2, rtol=1e-2)
print("program: ok")
"""

USER_KERNEL = """
import torch
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1.0, mask=m)


def fn(x):
    out = torch.empty_like(x)
    add_one[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), BLOCK=128)
    return out * 2


x = torch.randn(1000, device="cuda")
torch.testing.assert_close(torch.compile(fn)(x), (x + 1) * 2)
"""

CRASH = """
import torch
import triton
import triton.language as tl


@triton.jit
def far_load(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs + (1 << 40)))


x = torch.randn(128, device="cuda")
out = torch.empty_like(x)
far_load[(1,)](x, out, BLOCK=128)
torch.cuda.synchronize()
"""

# Runs a repro as `python repro.py --json` would, with Inductor's CachingAutotuner.run made to fail loudly: a
# repro that went through it would say so.
NO_AUTOTUNER = """
import json, runpy, sys
import torch._inductor.runtime.triton_heuristics as heuristics
called = []
def refuse(self, *args, **kwargs):
    called.append(self.fn.__name__)
    raise RuntimeError("the repro went through Inductor's CachingAutotuner")
heuristics.CachingAutotuner.run = refuse
sys.argv = [sys.argv[1], "--json"]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
    code = 0
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "autotuner_called": called}))
"""


def _capture(tdv: Tdv, program: Path, *extra: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = tdv(
        "repro",
        "capture",
        "--python",
        sys.executable,
        "--save-io",
        "--json",
        *extra,
        "--",
        sys.executable,
        str(program),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    document: dict[str, Any] = json_of(proc)
    assert not document["unreadable"] and not document["hook_errors"], document
    return document


def _check(tdv: Tdv, capture: str, number: int) -> dict[str, Any]:
    proc = tdv("repro", "make", str(number), "--capture", capture, "--check", "--json", "--python", sys.executable)
    assert proc.returncode == 0, proc.stderr[-3000:]
    document: dict[str, Any] = json_of(proc)
    return document


def _imports_of(kernel_py: Path) -> set[str]:
    import ast

    tops = set()
    for node in ast.parse(kernel_py.read_text()).body:
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def test_every_inductor_kernel_of_a_pointwise_reduction_replays_and_matches(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "model.py", POINTWISE_REDUCTION)
    document = _capture(tdv, program)
    kernels = document["kernels"]
    chosen = [k for k in kernels if not k["autotuning"]]
    assert chosen and all(k["origin"] == "inductor" and k["kernel"].startswith("triton_") for k in chosen), kernels
    for row in kernels:
        made = _check(tdv, document["capture"], row["number"])
        check = made["check"]
        assert check["reproduces"] is False and check["path"] == "compiled", check
        assert "match" in check["summary"] and "the recording" in check["summary"], check
        folder = Path(made["folder"])
        assert _imports_of(folder / "kernel.py") <= {"triton", "torch"}, (folder / "kernel.py").read_text()
    folder = Path(made["folder"])
    probe = subprocess.run(
        [sys.executable, "-c", NO_AUTOTUNER, str(folder / "repro.py")], capture_output=True, text=True, timeout=600
    )
    answer = json.loads(probe.stdout.strip().splitlines()[-1])
    assert answer == {"code": 0, "autotuner_called": []}, probe.stderr[-2000:]


def test_a_user_kernel_called_from_compiled_code_is_captured(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "user.py", USER_KERNEL)
    document = _capture(tdv, program)
    mine = [k for k in document["kernels"] if k["kernel"] == "add_one"]
    assert mine, document["kernels"]
    check = _check(tdv, document["capture"], mine[0]["number"])["check"]
    assert check["reproduces"] is False, check


def test_a_broken_kernel_reproduces_and_a_correct_one_runs_clean(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "nan.py", NAN)
    proc = tdv(
        "repro",
        "capture",
        "--python",
        sys.executable,
        "--save-io",
        "--json",
        "--",
        sys.executable,
        str(program),
        "cuda",
    )
    document = json_of(proc)
    by_name = {k["kernel"]: k for k in document["kernels"]}
    broken = _check(tdv, document["capture"], by_name["nan_kernel"]["number"])["check"]
    assert broken["reproduces"] is True and broken["findings"][0]["kind"] == "nonfinite", broken
    good = _check(tdv, document["capture"], by_name["good_kernel"]["number"])["check"]
    assert good["reproduces"] is False, good


def test_a_kernel_that_crashes_the_program_reproduces_the_crash(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "crash.py", CRASH)
    proc = tdv("repro", "capture", "--python", sys.executable, "--json", "--", sys.executable, str(program))
    assert proc.returncode != 0
    document = json_of(proc)
    (row,) = [k for k in document["kernels"] if k["kernel"] == "far_load"]
    check = _check(tdv, document["capture"], row["number"])["check"]
    assert check["reproduces"] is True and check["findings"][0]["kind"] == "crash", check


def test_eager_launches_replay_on_the_gpu(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "add.py", ADD)
    proc = tdv(
        "repro",
        "capture",
        "--python",
        sys.executable,
        "--save-io",
        "--json",
        "--",
        sys.executable,
        str(program),
        "cuda",
    )
    document = json_of(proc)
    row = next(k for k in document["kernels"] if k["kernel"] == "add_kernel")
    assert row["target"] and row["target"].startswith("cuda:"), row
    made = _check(tdv, document["capture"], row["number"])
    assert made["check"]["reproduces"] is False, made
    kernel_py = Path(made["folder"]) / "kernel.py"
    kernel_py.write_text(kernel_py.read_text().replace("mask = offs < n\n", "mask = offs < n - 37\n"))
    rerun = subprocess.run(
        [sys.executable, str(Path(made["folder"]) / "repro.py")],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TRITON_ALWAYS_COMPILE": "1"},
    )
    assert rerun.returncode == 1 and "mismatch in out_ptr: 37 of 1000 elements" in rerun.stdout, rerun


def test_a_max_autotune_matmul_replays_every_captured_kernel(tdv: Tdv, tmp_path: Path) -> None:
    program = write_program(tmp_path, "matmul.py", MATMUL)
    document = _capture(tdv, program, env={"TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS": "TRITON"})
    kernels = document["kernels"]
    chosen = [k for k in kernels if not k["autotuning"]]
    candidates = [k for k in kernels if k["autotuning"]]
    assert any("mm" in k["kernel"] for k in chosen), kernels
    # Every kernel the compiled program kept, and one benchmarked candidate where there are any (each check
    # starts a Python with torch: all of max-autotune's candidates would take many minutes, proving no more).
    for row in [*chosen, *candidates[:1]]:
        check = _check(tdv, document["capture"], row["number"])["check"]
        assert check["reproduces"] is False and check["path"] == "compiled", (row, check)
