"""`run --dump-ir` keeps Triton's per-kernel filter (MLIR_ENABLE_DUMP=<kernel>, or --kernel), and `ir diff`
of a --dump-ir dump against a plain MLIR_ENABLE_DUMP=1 capture of the same compile finds them the same:
value names that come from line info do not count. Real Triton 3.9, no GPU."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.integration.build.harness import tritondev
from tests.integration.ir_tools.conftest import AOT, KERNEL, TARGETS, Dumps, clean_environment, parse_json
from tests.support.venvs import triton_venv

MUL = """

@triton.jit
def mul_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""


def _request(folder: Path, source: Path, kernel: str, params: list[tuple[str, str]], name: str) -> Path:
    request = folder / f"{name}.json"
    request.write_text(
        json.dumps(
            {
                "source": str(source),
                "kernel": kernel,
                "params": [{"name": n, "type": t} for n, t in params],
                "constexprs": {"BLOCK": 1024},
                "targets": [TARGETS["cuda:90"]],
                "out": str(folder / f"{name}.out"),
                "options": {"num_warps": 4},
            }
        )
    )
    return request


def test_a_plain_capture_with_line_info_is_the_same_as_a_dump_ir_dump(real_dumps: Dumps, tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    dump = real_dumps["3.9-cuda90-w4"]
    request = dump.with_suffix(".request.json")  # what made that dump: the same compile
    raw = tmp_path / "raw.txt"
    with raw.open("w") as err:  # the way a user captures it: MLIR_ENABLE_DUMP=1 python ... 2> raw.txt
        subprocess.run(
            [str(triton_venv()), str(AOT), str(request)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            check=True,
            env={**env, "MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"},
        )
    assert "%offs" in raw.read_text() or "%x_" in raw.read_text()  # line info on: values named after variables
    same = parse_json(tritondev("ir", "diff", str(dump), str(raw), "--json", env=env))
    assert same["verdict"] == "same", same["summary"]
    assert "values renamed in order of appearance" in same["compared"]
    strict = parse_json(tritondev("ir", "diff", str(dump), str(raw), "--keep-names", "--json", env=env))
    assert strict["verdict"] == "frontend" and "%offs" in strict["diff"]
    text = tritondev("ir", "diff", str(dump), str(raw), env=env)
    assert text.stdout.startswith("same:") and "values renamed in order of appearance" in text.stderr


def test_run_dump_ir_keeps_the_users_kernel_filter(tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    source = tmp_path / "two.py"
    source.write_text(KERNEL + MUL)
    add = _request(
        tmp_path,
        source,
        "add_kernel",
        [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32")],
        "add",
    )
    mul = _request(tmp_path, source, "mul_kernel", [("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32")], "mul")
    script = tmp_path / "both.sh"
    python = triton_venv()
    script.write_text(f"#!/bin/sh\n{python} {AOT} {add} && {python} {AOT} {mul}\n")
    script.chmod(0o755)

    def passes_of(folder: Path) -> set[str]:
        rows = json.loads((folder / "index.json").read_text())["passes"]
        return {r["kernel"] for r in rows if r["when"] == "before"}

    for name, extra, wanted in (
        ("everything", {}, {"add_kernel", "mul_kernel"}),
        ("env-filter", {"MLIR_ENABLE_DUMP": "mul_kernel"}, {"mul_kernel"}),
        ("option", {}, {"add_kernel"}),
    ):
        folder = tmp_path / name
        option = ["--kernel", "add_kernel"] if name == "option" else []
        proc = tritondev(
            "run",
            "--dump-ir",
            *option,
            "--dump-dir",
            str(folder),
            "--workspace",
            str(tmp_path / "ws"),
            "--",
            str(script),
            env={**env, **extra},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert passes_of(folder) == wanted, name
    shown = tritondev(
        "env", "--dump-ir", "--kernel", "mul_kernel", "--shell", "bash", "--workspace", str(tmp_path / "ws"), env=env
    )
    assert "export MLIR_ENABLE_DUMP=mul_kernel" in shown.stdout
    alone = tritondev("env", "--kernel", "mul_kernel", "--workspace", str(tmp_path / "ws"), env=env)
    assert alone.returncode == 2 and "fix: add --dump-ir: --dump-ir --kernel mul_kernel" in alone.stderr


def test_opt_on_an_empty_dump_says_it_is_empty_and_which_one(tmp_path: Path) -> None:
    """A run that compiled nothing (here it fails at once) leaves a dump with no pass; opt names that dump and
    what its run did, instead of calling the pass unknown."""
    env = clean_environment(tmp_path / "home")
    ws = tmp_path / "ws"
    failed = tritondev("run", "--dump-ir", "--workspace", str(ws), "--", "false", env=env)
    assert failed.returncode == 1
    (dump,) = (ws / "dumps").iterdir()
    proc = tritondev("opt", "tritongpu-coalesce", "--workspace", str(ws), env=env)
    assert proc.returncode == 2, proc.stderr
    assert (
        f"error: the dump {dump} (the newest in the workspace's dumps/) is empty: it holds no MLIR pass: its "
        "command (`false`) exited with status 1"
    ) in proc.stderr
    assert "unknown pass" not in proc.stderr
    given = tritondev("opt", "tritongpu-coalesce", "--dump", str(dump), "--workspace", str(ws), env=env)
    assert given.returncode == 2 and "(given with --dump) is empty" in given.stderr
