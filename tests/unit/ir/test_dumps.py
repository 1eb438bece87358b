"""Reading IR dumps back: real dumps of the real Triton (excerpts in tests/unit/ir/dumps/), and every
way a dump can be broken."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bootstrap.ir.dumps import DumpError, latest_dump, load_dump
from bootstrap.ir.header import parse_header

DUMPS = Path(__file__).parent / "dumps"
WARPS4 = DUMPS / "triton-3.9-cuda90-warps4"  # passes 8-11 of add_kernel, triton 3.9, cuda:90, num_warps=4
WARPS8 = DUMPS / "triton-3.9-cuda90-warps8"  # the same with num_warps=8
OLD_STDERR = DUMPS / "triton-3.2.0-cuda90.stderr"  # raw MLIR_ENABLE_DUMP output of triton 3.2 (older MLIR headers)


def test_a_dump_folder_written_by_run() -> None:
    dump = load_dump(WARPS4)
    assert [s.number for s in dump.stages] == [8, 9, 10, 11]
    assert [s.arg for s in dump.stages] == [
        "triton-loop-unroll",
        "convert-triton-to-tritongpu",
        "tritongpu-coalesce",
        "tritongpu-F32DotTC",
    ]
    convert, coalesce = dump.stages[1], dump.stages[2]
    assert convert.options == "enable-source-remat=false num-ctas=1 num-warps=4 target=cuda:90 threads-per-warp=32"
    assert coalesce.name == "TritonGPUCoalesce" and coalesce.op == "builtin.module"
    assert coalesce.kernel == "add_kernel" and coalesce.target == "cuda:90"
    assert coalesce.is_pass_input and coalesce.origin == "0010-TritonGPUCoalesce.mlir"
    assert coalesce.body.startswith("#blocked = #ttg.blocked<") and "tt.load" in coalesce.body
    assert dump.kernels() == ["add_kernel"] and dump.pick_kernel(None) == "add_kernel"


def test_a_raw_dump_of_an_older_triton() -> None:
    dump = load_dump(OLD_STDERR)
    assert [(s.name, s.arg, s.options) for s in dump.stages] == [
        ("ConvertTritonToTritonGPU", "convert-triton-to-tritongpu", None),
        ("TritonGPUCoalesce", "tritongpu-coalesce", None),
    ]
    coalesce = dump.stages[1]
    assert coalesce.target == "cuda:90"  # triton_gpu.target, as Triton 3.2 named it
    assert coalesce.origin == f"{OLD_STDERR.name}:{1 + OLD_STDERR.read_text().splitlines().index(coalesce.header)}"
    assert "program:" not in coalesce.body  # the program's own output is not part of the dump


def test_one_file_of_a_dump_folder_is_a_dump_too() -> None:
    dump = load_dump(WARPS4 / "0010-TritonGPUCoalesce.mlir")
    assert [s.arg for s in dump.stages] == ["tritongpu-coalesce"]


@pytest.mark.parametrize(
    ("line", "name", "arg", "options", "failed"),
    [
        (
            "// -----// IR Dump After TritonGPUCoalesce Failed (tritongpu-coalesce) ('builtin.module' operation)"
            " //----- //",
            "TritonGPUCoalesce",
            "tritongpu-coalesce",
            None,
            "true",
        ),
        (
            "// -----// IR Dump Before ConvertTritonToTritonGPU: "
            "convert-triton-to-tritongpu{num-warps=4 target=cuda:90}"
            " ('builtin.module' operation) //----- //",
            "ConvertTritonToTritonGPU",
            "convert-triton-to-tritongpu",
            "num-warps=4 target=cuda:90",
            None,
        ),
    ],
)
def test_header_options_and_failures(line: str, name: str, arg: str, options: str | None, failed: str | None) -> None:
    header = parse_header(line)
    assert header is not None
    assert (header["pass"], header["arg"], header["options"], header["failed"]) == (name, arg, options, failed)


def _broken(tmp_path: Path, edit: str) -> Path:
    folder = tmp_path / "dump"
    shutil.copytree(WARPS4, folder)
    index = folder / "index.json"
    if edit == "no-index":
        index.unlink()
    elif edit == "bad-json":
        index.write_text("{not json")
    elif edit == "no-passes":
        index.write_text(json.dumps({"passes": "all of them"}))
    elif edit == "row-not-object":
        index.write_text(json.dumps({"passes": [3]}))
    elif edit == "file-outside":
        data = json.loads(index.read_text())
        data["passes"][0]["file"] = "../../etc/passwd"
        index.write_text(json.dumps(data))
    elif edit == "no-number":
        data = json.loads(index.read_text())
        data["passes"][0]["number"] = "8"
        index.write_text(json.dumps(data))
    elif edit == "file-missing":
        (folder / "0010-TritonGPUCoalesce.mlir").unlink()
    elif edit == "no-header":
        path = folder / "0010-TritonGPUCoalesce.mlir"
        path.write_text(path.read_text().split("\n", 1)[1])
    return folder


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ("no-index", "is not a dump folder: it has no index.json"),
        ("bad-json", "is not valid JSON"),
        ("no-passes", "has no list of passes"),
        ("row-not-object", "entry 1 of"),
        ("file-outside", "names no file of the folder"),
        ("no-number", "has no pass number"),
        ("file-missing", "lists 0010-TritonGPUCoalesce.mlir, which is missing"),
        ("no-header", "does not start with a dump header"),
    ],
)
def test_a_broken_dump_folder_is_refused(tmp_path: Path, edit: str, says: str) -> None:
    with pytest.raises(DumpError) as caught:
        load_dump(_broken(tmp_path, edit))
    assert says in caught.value.message and caught.value.fix
    assert caught.value.exit_code == 2


def test_not_a_dump(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(DumpError, match="holds no IR dump"):
        load_dump(tmp_path / "notes.txt")
    with pytest.raises(DumpError, match="does not exist"):
        load_dump(tmp_path / "missing")


def test_kernel_choice(tmp_path: Path) -> None:
    two = tmp_path / "two.stderr"
    text = (WARPS4 / "0010-TritonGPUCoalesce.mlir").read_text()
    two.write_text(text + "\n" + text.replace("@add_kernel", "@scale_kernel"))
    dump = load_dump(two)
    assert dump.kernels() == ["add_kernel", "scale_kernel"]
    with pytest.raises(DumpError, match="holds 2 kernels: add_kernel, scale_kernel") as caught:
        dump.pick_kernel(None)
    assert caught.value.fix == "name one with --kernel, e.g. --kernel add_kernel"
    with pytest.raises(DumpError, match="did you mean 'scale_kernel'"):
        dump.pick_kernel("scale_kernl")
    assert [s.kernel for s in dump.of_kernel("scale_kernel")] == ["scale_kernel"]


def test_latest_dump_of_a_workspace(tmp_path: Path) -> None:
    with pytest.raises(DumpError, match="no IR dump in") as caught:
        latest_dump(tmp_path)
    assert "tritondev run --dump-ir" in (caught.value.fix or "")
    older, newer = tmp_path / "dumps" / "20260101-000000", tmp_path / "dumps" / "20260102-000000"
    for folder, when in ((newer, 2_000_000_000), (older, 1_000_000_000)):
        shutil.copytree(WARPS4, folder)
        os.utime(folder / "index.json", (when, when))
    (tmp_path / "dumps" / "not-a-dump").mkdir()
    assert latest_dump(tmp_path) == newer
