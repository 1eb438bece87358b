"""The dump splitter on real dumps printed by the real Triton compiler."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bootstrap.ir.split import Counter, DumpSection, DumpSplitter
from tests.integration.cache_env_run.conftest import quiet_env


@dataclass
class SplitResult:
    sections: list[DumpSection]
    passthrough: list[str]  # the lines that were not part of a dump, as given


def split_dump(text: str, counter: Callable[[], int] | None = None) -> SplitResult:
    """Split one stream's whole text, as `tritondev run` does line by line: its sections, and everything else."""
    splitter = DumpSplitter(counter)
    result = SplitResult([], [])
    for line in [*text.splitlines(keepends=True)]:
        _collect(splitter.feed(line), result)
    _collect(splitter.close(), result)
    return result


def _collect(events: Iterable[DumpSection | str], result: SplitResult) -> None:
    for event in events:
        if isinstance(event, DumpSection):
            result.sections.append(event)
        else:
            result.passthrough.append(event)


@dataclass
class RealDump:
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def real_dump(triton_python: Path, kernel_script: Path, tmp_path_factory: pytest.TempPathFactory) -> RealDump:
    """Every dump Triton can print (MLIR passes, LLVM passes, NVPTX, AMDGCN) for two kernels and two targets."""
    env = quiet_env(
        TRITON_CACHE_DIR=str(tmp_path_factory.mktemp("dumpcache")),
        TRITON_ALWAYS_COMPILE="1",
        MLIR_ENABLE_DUMP="1",
        LLVM_IR_ENABLE_DUMP="1",
        NVPTX_ENABLE_DUMP="1",
        AMDGCN_ENABLE_DUMP="1",
        TRITON_DISABLE_LINE_INFO="1",
        PYTHONUNBUFFERED="1",
    )
    out = subprocess.run(
        [str(triton_python), str(kernel_script), "add_kernel@cuda:90", "scale_kernel@hip:gfx942"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return RealDump(out.stdout, out.stderr)


def test_program_output_is_separated_from_dumps(real_dump: RealDump) -> None:
    counter = Counter()
    out = split_dump(real_dump.stdout, counter)
    err = split_dump(real_dump.stderr, counter)
    assert [line.rstrip("\n") for line in out.passthrough] == [
        "program: start",
        "program: compiled add_kernel for cuda:90",
        "program: compiled scale_kernel for hip:gfx942",
    ]
    own_err = [line for line in err.passthrough if line.startswith("program-stderr")]
    assert own_err == ["program-stderr: done add_kernel cuda:90\n", "program-stderr: done scale_kernel hip:gfx942\n"]
    assert len(err.passthrough) == 2
    # Lossless: every line is either forwarded or inside exactly one section.
    dumped = sum(len(s.lines) + 1 for s in out.sections + err.sections)
    total = len(real_dump.stdout.splitlines()) + len(real_dump.stderr.splitlines())
    assert dumped + len(out.passthrough) + len(err.passthrough) == total


def test_sections_by_kind_and_kernel(real_dump: RealDump) -> None:
    counter = Counter()
    sections = split_dump(real_dump.stdout, counter).sections + split_dump(real_dump.stderr, counter).sections
    kinds = {s.kind for s in sections}
    assert kinds == {"mlir", "llvm", "nvptx", "amdgcn"}
    headers = real_dump.stdout.count("// -----//") + real_dump.stderr.count("// -----//")
    headers += real_dump.stderr.count("*** IR Dump")
    assert len(sections) == headers
    assert sorted(s.number for s in sections) == list(range(1, headers + 1))
    assert {s.kernel for s in sections} == {"add_kernel", "scale_kernel"}
    nvptx = [s for s in sections if s.kind == "nvptx"]
    amdgcn = [s for s in sections if s.kind == "amdgcn"]
    assert [(s.kernel, s.target) for s in nvptx] == [("add_kernel", "sm_90a")]
    assert [(s.kernel, s.target) for s in amdgcn] == [("scale_kernel", "gfx942")]
    assert nvptx[0].text().rstrip().endswith("}")
    assert ".end_amdgpu_metadata" in amdgcn[0].text()
    mlir = [s for s in sections if s.kind == "mlir"]
    assert mlir[0].pass_name == "InlinerPass" and mlir[0].when == "before" and mlir[0].op == "builtin.module"
    assert {s.target for s in mlir} >= {"cuda:90", "hip:gfx942"}
    # Each module-level MLIR section holds one whole module: its braces (outside strings) balance.
    for s in mlir:
        if s.op == "builtin.module":
            code = re.sub(r'"(?:[^"\\]|\\.)*"', "", s.text())
            assert code.count("{") == code.count("}") > 0, s.header
