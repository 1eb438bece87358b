"""`tritondev ir view` on dumps and compile folders of the real Triton 3.9, its page opened offline in a real
headless Chromium (tests/support/browser.py), and every bad input refused the house way."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import tritondev
from tests.integration.ir_tools.conftest import clean_environment, dump_with_run, parse_json
from tests.integration.ir_tools.views import DOT_LINE, Matmul, dumped_passes, make_matmul
from tests.support.browser import Browser, BrowserError, BrowserRestarted, chromium
from tests.support.snapshot import diff, snapshot
from tests.support.venvs import fresh_venv, triton_venv

REPO = Path(__file__).resolve().parents[3]
needs_chromium = pytest.mark.skipif(chromium() is None, reason="no chromium on PATH (Debian: apt-get install chromium)")


@pytest.fixture(scope="module")
def matmul(tmp_path_factory: pytest.TempPathFactory) -> Matmul:
    return make_matmul(tmp_path_factory.mktemp("ir-view-matmul"))


@pytest.fixture(scope="module")
def add_dumps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The add kernel for cuda:90 with 4 and 8 warps, dumped as `run --dump-ir` does by default (no line info)."""
    root = tmp_path_factory.mktemp("ir-view-add")
    kernel_file = root / "add.py"
    from tests.integration.ir_tools.conftest import KERNEL

    kernel_file.write_text(KERNEL)
    env = clean_environment(root / "home")
    folders = {}
    for warps in (4, 8):
        folder = root / f"w{warps}"
        proc = dump_with_run(triton_venv(), kernel_file, "cuda:90", warps, folder, env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        folders[f"w{warps}"] = folder
    return folders


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if chromium() is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")
    try:
        opened = Browser()
    except BrowserError as exc:  # one start in many runs gave no answer in 30 s: once more, a fresh browser
        warnings.warn(BrowserRestarted(f"chromium started again: {exc}"), stacklevel=1)
        opened = Browser()
    with opened:
        yield opened


def view(*args: str, env: dict[str, str]) -> dict[str, Any]:
    proc = tritondev("ir", "view", *args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return parse_json(proc)


def open_clean(browser: Browser, page: Path) -> None:
    """The page opened from a file URL with the network off: no console error, no request but its own file."""
    opened = browser.open(page)
    assert opened.errors() == []
    assert opened.requests == [page.resolve().as_uri()]


def rows_named(browser: Browser, name: str) -> list[int]:
    found: list[int] = browser.evaluate(
        f"[...document.querySelectorAll('.pass')].filter(n => n.querySelector('.name').firstChild.textContent === "
        f"{json.dumps(name)}).map(n => Number(n.dataset.index))"
    )
    return found


@needs_chromium
def test_a_matmul_dump_opens_offline_with_its_passes_changes_and_source(matmul: Matmul, browser: Browser) -> None:
    data = view(str(matmul.dump), env=matmul.env)
    page = Path(str(data["path"]))
    assert page == matmul.dump / "ir-view.html" and data["bytes"] == page.stat().st_size
    (kernel,) = data["dumps"][0]["kernels"]
    assert kernel["name"] == "matmul_kernel" and kernel["passes"] == dumped_passes(matmul.dump)
    assert data["sources"][0] == {"path": str(matmul.kernel_file), "found": True}
    open_clean(browser, page)
    summary = browser.evaluate("({...document.getElementById('summary').dataset})")
    assert int(summary["passes"]) == kernel["passes"] and int(summary["changed"]) == kernel["changed"]
    assert browser.evaluate("document.querySelectorAll('.pass').length") == kernel["dumps"]
    changed_passes = 'document.querySelectorAll(\'.pass[data-pass="true"][data-changed="true"]\').length'
    assert browser.evaluate(changed_passes) == kernel["changed"]
    # The first pass that changed the IR is selected: the inliner's canonicalize (the inliner itself left it as it was).
    assert browser.evaluate("document.querySelector('.pass.selected .name').firstChild.textContent") == "canonicalize"
    assert kernel["first_changed"] == "canonicalize"
    assert browser.evaluate("document.querySelector('.pass[data-index=\"0\"]').dataset.changed") == "false"
    # The pass that turns tl.dot into Hopper's warp-group MMA: its diff's lines, unified and side by side.
    (accelerate,) = rows_named(browser, "tritongpu-accelerate-matmul")
    browser.click(f'.pass[data-index="{accelerate}"]')
    model = browser.evaluate(f"window.irview.app.track.rows[{accelerate}]")
    added = browser.evaluate("[...document.querySelectorAll('#content .line.add .text')].map(n => n.textContent)")
    assert len(added) == model["added"] > 0
    assert browser.evaluate("document.querySelectorAll('#content .line.del').length") == model["removed"]
    assert any("ttng.warp_group_dot" in line for line in added)
    browser.click('#views button[data-view="split"]')
    assert browser.evaluate("document.querySelectorAll('#content .split .line.add').length") == model["added"]
    browser.click('#views button[data-view="diff"]')
    # Selecting the Python line of tl.dot highlights its ops in this pass, and the other way round.
    browser.click(f'#source .src-line[data-line="{DOT_LINE}"]')
    lit = browser.evaluate(
        "[...document.querySelectorAll('#content .line.hl')].map(n => [Number(n.dataset.src), "
        "n.querySelector('.text').textContent])"
    )
    assert lit and all(src == DOT_LINE for src, _ in lit)  # file 0 (mm.py), line 19
    assert any("warp_group_dot" in text for _, text in lit)
    browser.click(f'#content .line[data-src="{DOT_LINE}"]')
    assert browser.evaluate("[...document.querySelectorAll('#source .src-line.hl')].map(n => n.dataset.line)") == [
        str(DOT_LINE)
    ]
    # Search across all passes.
    browser.evaluate(
        "(() => { const s = document.getElementById('search'); s.value = 'ttng.warp_group_dot'; "
        "s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()"
    )
    assert int(browser.evaluate("document.getElementById('search-result').dataset.rows")) > 10
    assert browser.page.errors() == []


@needs_chromium
def test_a_compile_folder_shows_its_stages_and_resources(matmul: Matmul, browser: Browser) -> None:
    data = view(str(matmul.compiled), env=matmul.env)
    kernels = data["dumps"][0]["kernels"]
    assert [(k["target"], k["passes"]) for k in kernels] == [("cuda:90", 5), ("hip:gfx942", 4)]
    reported = {t["target"]: t["resources"] for t in matmul.compile_report["targets"]}  # type: ignore[attr-defined]
    assert kernels[0]["resources"] == reported["cuda:90"] and kernels[1]["resources"] == reported["hip:gfx942"]
    open_clean(browser, Path(str(data["path"])))
    stages = browser.evaluate("[...document.querySelectorAll('.stage-head')].map(n => n.textContent)")
    assert stages == ["TTIR", "TTGIR", "LLIR", "PTX", "SASS"]
    registers = browser.evaluate(
        "document.querySelector('#resource-table tr[data-key=\"registers\"] td:last-child').textContent"
    )
    assert int(registers) == reported["cuda:90"]["registers"]
    browser.evaluate(
        "(() => { const s = document.getElementById('kernel'); s.value = '1'; "
        "s.dispatchEvent(new Event('change')); })()"
    )
    occupancy = browser.evaluate(
        "document.querySelector('#resource-table tr[data-key=\"occupancy\"] td:last-child').textContent"
    )
    assert int(occupancy) == reported["hip:gfx942"]["occupancy"]
    assert browser.page.errors() == []


@needs_chromium
def test_two_dumps_open_side_by_side_at_the_pass_ir_diff_names(
    add_dumps: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    env = clean_environment(tmp_path / "home")
    a, b = add_dumps["w4"], add_dumps["w8"]
    named = parse_json(tritondev("ir", "diff", str(a), str(b), "--json", env=env))
    data = view(str(a), str(b), "--out", str(tmp_path / "w4-w8.html"), env=env)
    assert data["compare"]["verdict"] == named["verdict"] == "pass"
    open_clean(browser, tmp_path / "w4-w8.html")
    selected = browser.evaluate("document.querySelector('.pass.selected .name').firstChild.textContent")
    assert selected == named["pass"] == "convert-triton-to-tritongpu"
    assert browser.evaluate("document.querySelectorAll('.pass.selected').length") == 1
    assert int(browser.evaluate("document.getElementById('summary').dataset.differ")) == data["compare"]["differ"] > 0
    # Its output differs: the pair after it shows a's IR against b's, warpsPerCTA 4 against 8.
    browser.click(f'.pass[data-index="{data["compare"]["first"] + 1}"]')
    lines = browser.evaluate(
        "[...document.querySelectorAll('#content .line.add .text, #content .line.del .text')]"
        ".map(n => n.textContent).join('\\n')"
    )
    assert "warpsPerCTA = [4]" in lines and "warpsPerCTA = [8]" in lines
    assert browser.page.errors() == []


@needs_chromium
def test_run_dump_ir_then_ir_view_selects_the_first_changed_pass(
    add_dumps: dict[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """The acceptance path: `tritondev run --dump-ir` (line info off, as it runs by default), then `ir view`."""
    env = clean_environment(tmp_path / "home")
    proc = tritondev("ir", "view", str(add_dumps["w4"]), env=env)
    assert proc.returncode == 0, proc.stderr
    page = Path(proc.stdout.strip())
    assert page == add_dumps["w4"] / "ir-view.html"
    assert "names no source lines" in proc.stderr
    open_clean(browser, page)
    assert int(browser.evaluate("document.getElementById('summary').dataset.passes")) == dumped_passes(add_dumps["w4"])
    assert browser.evaluate("document.querySelector('.pass.selected .name').firstChild.textContent") == "canonicalize"
    assert "TRITON_DISABLE_LINE_INFO=0" in browser.evaluate("document.getElementById('source').textContent")


@needs_chromium
def test_a_crafted_dump_is_shown_as_text(add_dumps: dict[str, Path], browser: Browser, tmp_path: Path) -> None:
    crafted = tmp_path / "crafted"
    shutil.copytree(add_dumps["w4"], crafted)
    target = next(crafted.glob("*-TritonGPUCoalesce.mlir"))
    payload = '"</script><script>document.title = \\"owned\\"</script><img src=x onerror=alert(1)>"'
    target.write_text(target.read_text().replace("tt.return", f"tt.return {payload}"))
    data = view(str(crafted), env=clean_environment(tmp_path / "home"))
    open_clean(browser, Path(str(data["path"])))
    browser.evaluate(
        "(() => { const s = document.getElementById('search'); s.value = 'onerror'; "
        "s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()"
    )
    assert browser.evaluate("document.title") != "owned"
    assert browser.evaluate("document.querySelectorAll('#content img').length") == 0
    assert "onerror=alert(1)" in browser.evaluate("document.getElementById('content').textContent")
    assert browser.page.errors() == []


def test_open_uses_the_browser_variable_and_says_when_there_is_none(add_dumps: dict[str, Path], tmp_path: Path) -> None:
    env = clean_environment(tmp_path / "home")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        env.pop(name, None)
    proc = tritondev("ir", "view", str(add_dumps["w4"]), "--out", str(tmp_path / "p.html"), "--open", env=env)
    assert proc.returncode == 0 and "not opened: no desktop here" in proc.stderr
    seen = tmp_path / "opened-with"
    opener = tmp_path / "fake browser"
    # A real program as $BROWSER: what matters is the contract (the page's path as its argument), not a desktop.
    opener.write_text(f"#!/bin/sh\necho \"browser says hello\"\nprintf '%s' \"$1\" > '{seen}'\n")
    opener.chmod(0o755)
    proc = tritondev(
        "ir",
        "view",
        str(add_dumps["w4"]),
        "--out",
        str(tmp_path / "p.html"),
        "--open",
        "--json",
        env={**env, "BROWSER": f"nothing-here:'{opener}'"},
    )
    assert proc.returncode == 0, proc.stderr
    assert parse_json(proc)["opened"] is True  # stdout is the one JSON document: the browser's words went to stderr
    assert "browser says hello" in proc.stderr
    assert seen.read_text() == str(tmp_path / "p.html")


# name -> (arguments given the dump and a scratch folder, words of the error)
BAD: dict[str, tuple[Callable[[Path, Path], list[str]], str]] = {
    "missing": (lambda d, t: [str(t / "nope")], "does not exist"),
    "not-a-dump": (lambda d, t: [str(t)], "neither an IR dump nor a compile folder"),
    "not-a-dump-file": (lambda d, t: [str(REPO / "README.md")], "holds no IR dump"),
    "kernel-not-there": (lambda d, t: [str(d), "--kernel", "add_kernl"], "did you mean 'add_kernel'"),
    "out-is-a-folder": (lambda d, t: [str(d), "--out", str(t)], "folder"),
    "out-is-a-link": (lambda d, t: [str(d), "--out", str(t / "link.html")], "link"),
    "second-missing": (lambda d, t: [str(d), str(t / "nope")], "does not exist"),
}


@pytest.mark.parametrize(("case", "json_mode"), [(c, j) for c in sorted(BAD) for j in (False, True)])
def test_bad_input(case: str, json_mode: bool, add_dumps: dict[str, Path], tmp_path: Path) -> None:
    make_args, words = BAD[case]
    dump = tmp_path / "dump"
    shutil.copytree(add_dumps["w4"], dump)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "mine.txt").write_text("mine")
    (scratch / "link.html").symlink_to(scratch / "mine.txt")
    before = snapshot(dump, scratch)
    proc = tritondev(
        "ir",
        "view",
        *make_args(dump, scratch),
        *(["--json"] if json_mode else []),
        env=clean_environment(tmp_path / "home"),
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert diff(before, snapshot(dump, scratch)) == []
    assert "Traceback" not in proc.stderr
    if json_mode:
        data = parse_json(proc)
        assert words in data["message"] and data["fix"] and data["exit_code"] == 2
    else:
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert words in lines[0] and lines[1].startswith("fix: ")


def test_pip_install_ships_the_page(tmp_path: Path) -> None:
    """The page's HTML, CSS and script are package data: a wheel of tritondev holds them and renders a page."""
    source = tmp_path / "src"
    shutil.copytree(REPO / "bootstrap", source / "bootstrap", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("tritondev-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"bootstrap/ir/view/assets/{n}" for n in ("page.html", "page.css", "page.js")} <= set(names)
    fresh_venv(tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, capture_output=True
    )
    probe = (
        "from bootstrap.ir.view.page import render_page; "
        "page = render_page({'title': 't', 'dumps': [], 'files': [], 'compare': None}); "
        "assert 'DecompressionStream' in page; print(len(page))"
    )
    out = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path)
    assert int(out.stdout) > 10000
