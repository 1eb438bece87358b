"""Figures for the README's "Tested on" table, measured on a machine with an NVIDIA GPU.

    python3 tests/gpu/figures.py [--out FILE.json]

Runs the real CLI with this interpreter as the target environment: `doctor` (median wall time of
three runs, and its ratio to `python -m torch.utils.collect_env` as tests/perf/bench_doctor_gpu.py
measures it), `verify` (vector-add bandwidth beside a torch device-to-device copy) and `compile` for
the local arch and three other targets (wall time per target). Prints a Markdown table and, with
--out, the raw figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a file: the tests' helpers and the benchmark are imported from the checkout

from tests.perf import bench_doctor_gpu  # noqa: E402
from tests.support.cli import tritondev_argv  # noqa: E402
from tests.support.environ import child_environ  # noqa: E402
from tests.support.kernels import add_kernel_module  # noqa: E402


def tritondev(*args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    proc = subprocess.run(tritondev_argv(*args), capture_output=True, text=True, env=env,
                          cwd=env["HOME"], timeout=900)  # fmt: skip
    return proc, time.perf_counter() - started


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def gpu_facts() -> dict[str, str]:
    out = (
        subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[0]
    )
    name, driver, cap = (part.strip() for part in out.split(","))
    return {"gpu": name, "driver": driver, "compute_capability": cap}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="tritondev-figures-"))
    env = child_environ()
    env.update(HOME=str(home), TRITONDEV_WORKSPACE=str(home / "ws"), TRITON_CACHE_DIR=str(home / "cache"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))  # fmt: skip
    figures: dict[str, object] = {**gpu_facts()}
    figures.update(python=sys.version.split()[0], torch=version("torch"), triton=version("triton"), jax=version("jax"))

    doctor_times, doctor_summary = [], None
    for _ in range(3):
        proc, seconds = tritondev("doctor", "--json", "--python", sys.executable, env=env)
        doctor_times.append(seconds)
        doctor_summary = json.loads(proc.stdout)
        if "checks" not in doctor_summary:  # an error document: say what doctor said
            raise SystemExit(f"doctor failed (exit {proc.returncode}): {proc.stdout[-800:]} {proc.stderr[-1500:]}")
    assert doctor_summary is not None
    figures["doctor_seconds_median"] = round(statistics.median(doctor_times), 2)
    figures["doctor_checks"] = len(doctor_summary["checks"])
    figures["doctor_summary"] = doctor_summary.get("summary")
    figures["doctor_exit"] = proc.returncode
    with tempfile.TemporaryDirectory(prefix="tritondev-figures-doctor-") as folder:
        ratio = bench_doctor_gpu.measure(sys.executable, env, folder)
    figures["doctor_over_collect_env"] = ratio["measured"]  # "0.25 (1.10 s / 4.40 s)", medians of alternating runs

    proc, seconds = tritondev("verify", "--json", "--python", sys.executable, env=env)
    report = json.loads(proc.stdout)
    figures["verify_exit"] = proc.returncode
    figures["verify_seconds"] = round(seconds, 2)
    figures["verify_bandwidth"] = report.get("bandwidth")
    bw: dict[str, float] = report.get("bandwidth") or {}

    kernel = home / "k.py"
    kernel.write_text(add_kernel_module())
    major, minor = str(figures["compute_capability"]).split(".")
    compile_times: dict[str, dict[str, float]] = {}
    for target in (f"cuda:{major}{minor}", "cuda:80", "cuda:120", "hip:gfx942"):
        proc, seconds = tritondev("compile", f"{kernel}::add_kernel", "--signature",
                                  "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32", "--constexpr", "BLOCK=1024",
                                  "--target", target, "--out", str(home / "out"), "--python", sys.executable,
                                  "--json", env=env)  # fmt: skip
        compile_times[target] = {"seconds": round(seconds, 2), "exit": proc.returncode}
    figures["compile"] = compile_times

    print(
        "| GPU | driver | CC | torch | triton | jax | doctor (median, checks) | doctor / collect_env | "
        "verify: vector add vs torch copy | compile per target |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    per_target = ", ".join(f"{t} {v['seconds']} s" for t, v in compile_times.items())
    print(f"| {figures['gpu']} | {figures['driver']} | {figures['compute_capability']} | {figures['torch']} | "
          f"{figures['triton']} | {figures['jax']} | {figures['doctor_seconds_median']} s, "
          f"{figures['doctor_checks']} checks | {figures['doctor_over_collect_env']} | "
          f"{bw.get('add_gbps', 0):.0f} / {bw.get('copy_gbps', 0):.0f} GB/s "
          f"= {bw.get('ratio', 0):.2f} | {per_target} |")  # fmt: skip
    print(json.dumps(figures, indent=2, default=str))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2, default=str))
    ok = figures["verify_exit"] == 0 and all(v["exit"] == 0 for v in compile_times.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
