"""The page's data built from real Triton 3.9 dumps, the page that carries it, and the browser opener."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bootstrap.ir.dumps import DumpError
from bootstrap.ir.view.deltas import apply
from bootstrap.ir.view.inputs import by_kernel, load_input, pick_kernels
from bootstrap.ir.view.model import SourceTable, build_model, run_lengths
from bootstrap.ir.view.opener import Opener, find_opener
from bootstrap.ir.view.page import render_page

HERE = Path(__file__).parent
LINE_INFO = HERE / "dumps" / "add-3.9-cuda90-lineinfo"  # passes 1-13 of a real compile, TRITON_DISABLE_LINE_INFO=0
ENV_DUMPS = HERE.parent / "dumps"  # passes 8-11, line info off (as run --dump-ir makes them by default)


def model_of(*paths: Path, kernels: list[str | None] | None = None) -> tuple[dict[str, Any], SourceTable]:
    table = SourceTable([])
    inputs = [load_input(p) for p in paths]
    return build_model(inputs, kernels or [None] * len(paths), {}, table, "title", "tritondev test"), table


def texts(kernel: dict[str, Any]) -> list[list[str]]:
    out: list[list[str]] = []
    for row in kernel["passes"]:
        out.append(apply(out[-1] if out else [], row["delta"]))
    return out


def test_passes_are_marked_changed_or_unchanged_with_the_size_of_their_change() -> None:
    model, table = model_of(LINE_INFO)
    (kernel,) = model["dumps"][0]["kernels"]
    rows = kernel["passes"]
    assert kernel["name"] == "add_kernel" and kernel["target"] == "cuda:90"
    assert [r["arg"] for r in rows][:3] == ["inline", "canonicalize", "canonicalize"]
    changed = [r["arg"] for r in rows if r["changed"]]
    assert changed == ["canonicalize", "convert-triton-to-tritongpu", "tritongpu-coalesce"]
    assert kernel["first_changed"] == 1
    assert kernel["count"] == {"dumps": 13, "passes": 13, "changed": 3, "unchanged": 9}
    assert rows[-1]["changed"] is None  # its output is not in this (shortened) dump: unknown, not unchanged
    assert [r["stage"] for r in rows[8:10]] == ["ttir", "ttgir"]
    # The coalesce pass's change is the delta of the dump after it, and rebuilds that dump's text.
    shown = texts(kernel)
    coalesce = rows[9]
    assert coalesce["effect"] == 10 and (coalesce["added"], coalesce["removed"]) == (12, 5)
    assert any("ttg.convert_layout" in line for line in shown[10]) and not any(
        "ttg.convert_layout" in line for line in shown[9]
    )
    assert table.paths == ["/tmp/irv/add/add.py"]


def test_each_shown_line_carries_its_source_line() -> None:
    model, _ = model_of(LINE_INFO)
    (kernel,) = model["dumps"][0]["kernels"]
    row = kernel["passes"][9]
    ids: list[int] = []
    for value, count in zip(row["locs"][::2], row["locs"][1::2], strict=True):
        ids += [value] * count
    lines = texts(kernel)[9]
    assert len(ids) == len(lines) == row["nlines"]
    store = next(i for i, line in enumerate(lines) if "tt.store" in line)
    assert ids[store] == 12  # file 0, line 12 of add.py
    assert run_lengths([0, 0, 5, 5, 5, 0]) == [0, 2, 5, 3, 0, 1]


def test_a_dump_without_line_info_has_no_source_file() -> None:
    model, table = model_of(ENV_DUMPS / "triton-3.9-cuda90-warps4")
    assert table.paths == [] and model["files"] == []
    kernel = model["dumps"][0]["kernels"][0]
    assert all(r["locs"] == [0, r["nlines"]] for r in kernel["passes"])


def test_two_dumps_line_up_and_the_pass_ir_diff_names_is_selected() -> None:
    a, b = ENV_DUMPS / "triton-3.9-cuda90-warps4", ENV_DUMPS / "triton-3.9-cuda90-warps8"
    model, _ = model_of(a, b, kernels=["add_kernel", "add_kernel"])
    compare = model["compare"]
    assert compare["verdict"] == "pass" and "num-warps=4 in a, 8 in b" in compare["summary"]
    pairs = compare["pairs"]
    assert [p[:3] for p in pairs] == [[0, 0, True], [1, 1, True], [2, 2, False], [3, 3, False]]
    assert compare["first"] == 1  # convert-triton-to-tritongpu: its input is the same, its output is not
    kernel_a, kernel_b = (d["kernels"][0] for d in model["dumps"])
    assert apply(texts(kernel_a)[2], pairs[2][3]) == texts(kernel_b)[2]
    assert pairs[0][3] is None


def test_nested_passes_belong_to_the_compile_they_ran_in(tmp_path: Path) -> None:
    dump = load_input(LINE_INFO)
    assert dump.kernels() == ["add_kernel"]
    from dataclasses import replace

    stages = list(dump.tracks[0].stages)
    helper = replace(stages[1], kernel="triton.language.standard.cdiv", op="tt.func")
    grouped = by_kernel([stages[0], helper, *stages[2:]])
    assert [name for name, _ in grouped] == ["add_kernel"] and len(grouped[0][1]) == len(stages)


def test_kernels_are_picked_as_ir_diff_picks_them() -> None:
    a = load_input(ENV_DUMPS / "triton-3.9-cuda90-warps4")
    assert pick_kernels(a, None, None) == ("add_kernel", None)
    assert pick_kernels(a, a, None) == ("add_kernel", "add_kernel")
    with pytest.raises(DumpError, match="did you mean 'add_kernel'"):
        pick_kernels(a, None, "add_kernl")


def test_what_is_no_dump_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DumpError, match="does not exist"):
        load_input(tmp_path / "nope")
    with pytest.raises(DumpError, match="neither an IR dump nor a compile folder"):
        load_input(tmp_path)
    (tmp_path / "cuda-90").mkdir()
    (tmp_path / "cuda-90" / ".tritondev-compile").write_text("")
    with pytest.raises(DumpError, match="holds no IR stage"):
        load_input(tmp_path)
    empty = tmp_path / "empty-dump"
    empty.mkdir()
    (empty / "index.json").write_text('{"command": ["python", "k.py"], "returncode": 1, "passes": []}')
    with pytest.raises(DumpError, match="holds no MLIR pass"):
        load_input(empty)


def decode(page: str) -> dict[str, Any]:
    data = re.search(r'<script id="data" type="application/octet-stream">([^<]*)</script>', page)
    assert data is not None
    decoded: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(data.group(1))))
    return decoded


def test_the_page_carries_its_data_and_allows_only_its_own_script_and_style() -> None:
    model, _ = model_of(LINE_INFO)
    page = render_page(model)
    assert decode(page) == model
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None and "default-src 'none'" in policy.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == len(styles) == 1
    for text in (scripts[0], styles[0]):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy.group(1)
    assert "http://" not in page and "https://" not in page  # nothing to fetch from anywhere
    assert render_page(model) == page  # the same dump gives the same page, byte for byte


def test_a_crafted_dump_cannot_put_markup_or_placeholders_into_the_page(tmp_path: Path) -> None:
    crafted = tmp_path / "crafted"
    shutil.copytree(ENV_DUMPS / "triton-3.9-cuda90-warps4", crafted)
    file = crafted / "0009-ConvertTritonToTritonGPU.mlir"
    file.write_text(file.read_text().replace("tt.return", 'tt.return "</script><script>alert(1)</script>{{SCRIPT}}"'))
    model, _ = model_of(crafted)
    model["title"] = "</title><script>x</script>{{SCRIPT}}"
    page = render_page(model)
    assert page.count("<script>") == 1 and "alert(1)" not in page
    assert "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;{{SCRIPT}}" in page
    assert any("alert(1)" in line for k in decode(page)["dumps"][0]["kernels"] for line in texts(k)[1])


def test_the_browser_opener() -> None:
    where = {"xdg-open": "/usr/bin/xdg-open", "open": "/usr/bin/open", "firefox": "/usr/bin/firefox"}.get
    assert find_opener({"BROWSER": "nope:firefox --new-tab"}, where) == Opener(["firefox", "--new-tab"], "$BROWSER")
    assert find_opener({"DISPLAY": ":0"}, where) == Opener(["xdg-open"], "xdg-open")
    assert find_opener({"WAYLAND_DISPLAY": "wayland-0"}, lambda name: None) == (
        "no browser opener here (no $BROWSER program and no xdg-open on PATH)"
    )
    assert "no desktop here" in str(find_opener({}, where))
    assert find_opener({}, where, platform="darwin") == Opener(["open"], "macOS open")
