"""Measure the memory of the benchmark world's heaviest steps once, for world.py's MEASURED.

    python -m tests.perf.scale.measure <LLVM build folder of the benchmark world>

Re-runs, one at a time under /usr/bin/time -v, the compile of each heavy translation unit (from
compile_commands.json) and the link of one LLVM tool and mlir-opt (the last command of
`ninja -t commands <tool>`), writing to a scratch folder, and prints each peak resident size.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.perf.scale.sources import HEAVY_UNITS

HEAVY = re.compile(r"/Target/\w+/\w+(" + "|".join(HEAVY_UNITS) + r")\.cpp$")
LINKED_TOOLS = ("bin/llvm-objdump", "bin/mlir-opt")


def peak_mib(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of one command, from GNU time's verbose report."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr[-2000:]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    if rss is None or wall is None:
        raise RuntimeError("no report from /usr/bin/time -v")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return int(rss.group(1)) / 1024, seconds


def _with_output(argv: list[str], output: Path) -> list[str]:
    out = list(argv)
    out[out.index("-o") + 1] = str(output)
    return out


def measure(build: Path) -> dict[str, tuple[float, float]]:
    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="tritondev-measure-") as scratch:
        for entry in json.loads((build / "compile_commands.json").read_text()):
            if HEAVY.search(entry["file"]):
                argv = shlex.split(entry["command"])
                if Path(argv[0]).name == "ccache":
                    argv = argv[1:]
                name = f"compile {Path(entry['file']).name}"
                results[name] = peak_mib(_with_output(argv, Path(scratch) / "heavy.o"), Path(entry["directory"]))
        for tool in LINKED_TOOLS:
            commands = (
                subprocess.run(
                    ["ninja", "-C", str(build), "-t", "commands", tool], capture_output=True, text=True, check=True
                )
                .stdout.strip()
                .splitlines()
            )
            # CMake writes links as ": && <link command> && :".
            link = shlex.split(next(p for p in commands[-1].split("&&") if p.strip() not in ("", ":")))
            results[f"link {tool}"] = peak_mib(_with_output(link, Path(scratch) / "tool"), build)
    return results


def main() -> int:
    build = Path(sys.argv[1]).resolve()
    for name, (mib, seconds) in measure(build).items():
        print(f"{name}: {mib:,.0f} MiB peak RSS, {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
