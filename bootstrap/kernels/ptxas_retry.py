"""A cuda target whose ptxas does not know the arch, compiled again with a toolkit ptxas that does.

Triton picks its ptxas per arch (3.6: its bundled ptxas-blackwell from sm_100 on) and lets one
variable name another (TRITON_PTXAS_PATH, TRITON_PTXAS_BLACKWELL_PATH; Triton's own knobs say
which, asked by tritondev_triton.py). When that ptxas stops with "Value 'sm_110a' is not defined
for option 'gpu-name'", Triton compiles the target again with the toolkit's ptxas ($CUDA_HOME,
/usr/local/cuda, PATH: where compile already looks for nvdisasm), one after the other. The first
with which Triton compiles it is proven to know the arch, by that compile: the proof is Triton's
own pipeline, because the PTX version Triton writes follows the ptxas it uses (the failed PTX,
written for another ptxas, is no test of this one). Every stage and the SASS are then Triton's own,
and the report says which ptxas it was and the variables that make Triton use it by itself.

PTX never goes into a message: the failed attempt's PTX and what the compiler printed for it are
written beside the target's folder (`<out>/<backend>-<arch>.failed.ptx`, `.failed.txt`) and named.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from bootstrap.core import ui
from bootstrap.core.errors import TritondevError
from bootstrap.core.io import writes
from bootstrap.core.target import inside
from bootstrap.core.target import inside_answers as answers
from bootstrap.kernels.compile import run_plan
from bootstrap.kernels.compile_report import Retry
from bootstrap.kernels.diagnostics import headline
from bootstrap.kernels.nvidia_tools import toolkit_copies

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext
    from bootstrap.kernels.compile import CompilePlan
    from bootstrap.kernels.compile_report import CompileReport, TargetResult

_UNKNOWN_ARCH = re.compile(r"Value '(sm_\w+)' is not defined for option 'gpu-name'")
_REPRO = re.compile(r"Repro command:\s*(\S+)\s.*?(\S+\.ptx)\b")
# Lines that are PTX (or a PTX dump's debug sections), not a compiler's message.
_PTX_LINE = re.compile(
    r"^\s*(?:\.(?:b8|b16|b32|b64|u8|u16|u32|u64|version|target|address_size|visible|entry|func|param|reg|loc"
    r"|file|section|global|shared|local|const|extern|maxntid|reqntid|pragma|weak)\b|[a-z]+(?:\.[a-z0-9]+)+\s"
    r"|\$L__|@%?p\d|ret;|[{}]\s*$|// )"
)
_PTX_RUN = 5  # this many PTX lines in a compiler's output are a dump, not a message


def unknown_arch(tail: list[str]) -> str | None:
    """The sm_ name a ptxas said it does not know, else None. Pure."""
    match = _UNKNOWN_ARCH.search("\n".join(tail))
    return match.group(1) if match else None


def repro_ptx(tail: list[str]) -> Path | None:
    """The PTX file of Triton's repro command (Triton keeps it when ptxas fails), if it is still there."""
    for line in tail:
        match = _REPRO.search(line)
        if match and os.path.isfile(match.group(2)):
            return Path(match.group(2))
    return None


def split_ptx(lines: list[str]) -> tuple[list[str], list[str]]:
    """(the lines without any run of PTX, the lines of those runs). A run: consecutive PTX lines, with the
    blank and `//` comment lines between them, holding at least _PTX_RUN PTX lines. Pure."""
    kept: list[str] = []
    taken: list[str] = []
    run: list[str] = []
    ptx_lines = 0
    for line in [*lines, None]:
        if line is not None and (_PTX_LINE.match(line) or not line.strip() or line.lstrip().startswith("//")):
            run.append(line)
            ptx_lines += bool(_PTX_LINE.match(line))
            continue
        (taken if ptx_lines >= _PTX_RUN else kept).extend(run)
        run, ptx_lines = [], 0
        if line is not None:
            kept.append(line)
    return kept, taken


def keep_failed_output(result: TargetResult, out_dir: Path) -> Path | None:
    """A failed target's PTX and printed output into files beside its folder, and out of its tail and output;
    the PTX file kept (None: there was none, or it could not be written)."""
    folder = result.target.folder
    ptx = repro_ptx(result.tail)
    printed = result.output or result.tail
    _, taken = split_ptx(printed)
    written: list[str] = []
    kept: Path | None = None
    try:
        if ptx is not None:
            writes.replace_copy(out_dir / f"{folder}.failed.ptx", ptx)  # never through a link that is there
            kept = out_dir / f"{folder}.failed.ptx"
            written.append(f"the PTX its ptxas was given: {out_dir / f'{folder}.failed.ptx'}")
        if taken:
            writes.replace_text(out_dir / f"{folder}.failed.txt", "\n".join(printed) + "\n", verbatim=True)
            written.append(
                f"what the compiler printed ({len(taken)} lines of PTX among them): {out_dir / f'{folder}.failed.txt'}"
            )
    except writes.NotWritable as exc:
        written.append(f"the failed attempt's PTX was not kept: {exc.message}")
    except OSError as exc:
        written.append(f"the failed attempt's PTX could not be kept in {out_dir}: {exc.strerror}")
    result.tail = split_ptx(result.tail)[0]
    result.output = split_ptx(result.output)[0]
    result.notes.extend(written)
    return kept


def toolkit_ptxas(ctx: AppContext, exclude: set[str]) -> list[str]:
    """This machine's ptxas worth trying (the one lookup: kernels.nvidia_tools, the target's wheels
    included), less `exclude` (real paths)."""
    found = toolkit_copies("ptxas", os.environ, ctx.runner.which, ctx.target_python().site_packages)
    return [p for p in found if os.path.realpath(p) not in exclude]


def _release(ctx: AppContext, path: str) -> str | None:
    result = ctx.runner.capture([path, "--version"], step="compile-ptxas", check=False, timeout=30)
    match = re.search(r"release (\d+\.\d+)", result.stdout + result.stderr)
    return match.group(1) if result.ok and match else None


def triton_ptxas(ctx: AppContext, arch: int) -> answers.ChosenPtxas | None:
    """The ptxas the target's Triton uses for `arch` and the variables that name it (tritondev_triton.py)."""
    try:
        _, data = inside.run_json(
            ctx.runner,
            ctx.target_python().executable,
            "tritondev_triton.py",
            str(arch),
            step="compile-ptxas",
            timeout=120,
        )
        probe = answers.triton_import(data)
    except (inside.BadAnswer, TritondevError, ValueError):
        return None
    return probe.ptxas.chosen if probe.ptxas is not None else None


def retry_unknown_arch(ctx: AppContext, plan: CompilePlan, report: CompileReport, temporary: Path) -> None:
    """Each failed cuda target whose ptxas did not know the arch: compiled again with a proven toolkit ptxas.
    temporary: the compile's TMPDIR (run_plan), where Triton left the PTX of each failed ptxas run."""
    for index, result in enumerate(report.results):
        if result.ok or result.target.backend != "cuda":
            continue
        gpu_name = unknown_arch(result.tail)
        kept = keep_failed_output(result, plan.out_dir)
        chosen = triton_ptxas(ctx, int(result.target.arch)) if gpu_name else None
        if gpu_name is None or chosen is None or not chosen.env:
            continue
        retry = Retry(
            result.target.label,
            gpu_name,
            f"{chosen.path} (CUDA {chosen.version})",
            chosen.env,
            failed_ptx=str(kept) if kept is not None else None,
        )
        report.retries.append(retry)
        seen: set[str | None] = set()
        for candidate in toolkit_ptxas(ctx, {os.path.realpath(chosen.path)}):
            release = _release(ctx, candidate)
            if release is None or release in seen:
                continue  # does not run, or the same release under another path
            seen.add(release)

            with ui.working(f"compile: {result.target.label} again, with {candidate}", json=ctx.json):
                narrowed = run_plan(ctx, _only(plan, result.target), dict.fromkeys(chosen.env, candidate), temporary)
            again = narrowed.results[0]
            if not again.ok:
                retry.tried.append(f"{candidate} (CUDA {release}): Triton still failed: {headline(again.tail)}")
                continue
            retry.used, retry.release = candidate, release
            again.notes = [
                *result.notes,
                f"{chosen.path} (CUDA {chosen.version}, Triton's own for {gpu_name}) does "
                f"not know {gpu_name}: compiled with {candidate} (CUDA {release})",
            ]
            report.results[index] = again
            break


def _only(plan: CompilePlan, target: object) -> CompilePlan:
    import dataclasses

    return dataclasses.replace(plan, targets=tuple(t for t in plan.targets if t == target))
