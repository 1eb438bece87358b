"""The benchmark harness (tests/perf/run.py): every benchmark in one process, each in its own world.

Two worlds in one process: the second reads its own downloads even once the first's folder is
gone (the leak that made every setup benchmark after bench_bisect fail). A benchmark that raises is
one row; the table fits 120 columns; what a benchmark changes in the process is put back.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.perf import run
from tests.world import downloads, gitrepo, triton_repo

BUILD_HELPERS = Path(gitrepo.TEMPLATES) / "triton/common/python/build_helpers.py"
JSON_ZIP = f"https://{downloads.JSON_RELEASES}/{downloads.JSON_VERSION}/include.zip"


def mini_triton_build_helpers() -> ModuleType:
    """The mini Triton's python/build_helpers.py of the newest era, rendered as build_world writes it."""
    state = triton_repo.TritonState("root-json", "3.8.0", "0" * 40)
    text = gitrepo.select_lines(BUILD_HELPERS.read_text(), triton_repo.era_flags(state))
    for key, value in {
        **triton_repo.era_substitutions(state),
        "LLVM_PIN_FILE": "cmake/llvm-info.json",
        "BUILD_ROOT": "build",
    }.items():
        text = text.replace(f"%%{key}%%", value)
    spec = importlib.util.spec_from_loader("mini_build_helpers", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, str(BUILD_HELPERS), "exec"), module.__dict__)
    return module


def a_world_reads_its_downloads() -> list[run.Row]:
    """What a benchmark does with a world: make one in its temporary folder, build with it."""
    root = Path(tempfile.mkdtemp(prefix="world-"))
    url = downloads.provide_downloads(root / "downloads")
    with mini_triton_build_helpers().open_url(JSON_ZIP) as response:
        data = response.read()
    return [
        {
            "metric": "world",
            "measured": str(root),
            "goal": url,
            "pass": data == downloads.archives()[JSON_ZIP.split("://", 1)[1]],
        }
    ]


def test_two_worlds_in_one_process_each_read_their_own_downloads() -> None:
    before = os.environ.get(downloads.DOWNLOADS_ENV)
    first = run.run_isolated("bench_first", a_world_reads_its_downloads)
    second = run.run_isolated("bench_second", a_world_reads_its_downloads)
    assert first.error is None and second.error is None, (first.error, second.error)
    (one,), (two,) = first.rows, second.rows
    assert one["pass"] is True and two["pass"] is True
    assert not Path(str(one["measured"])).exists()  # the first world is gone ...
    assert str(two["goal"]).startswith(Path(str(two["measured"])).as_uri())  # ... the second read its own
    assert os.environ.get(downloads.DOWNLOADS_ENV) == before  # and neither is left to whatever runs next


def test_a_second_world_replaces_the_first_worlds_downloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(downloads.DOWNLOADS_ENV, raising=False)
    downloads.provide_downloads(tmp_path / "one")
    second = downloads.provide_downloads(tmp_path / "two")
    for path in sorted((tmp_path / "one").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    assert os.environ[downloads.DOWNLOADS_ENV] == second
    with mini_triton_build_helpers().open_url(JSON_ZIP) as response:
        assert response.read()


def test_a_benchmark_that_raises_is_one_row_and_keeps_its_traceback() -> None:
    def broken() -> list[run.Row]:
        raise FileNotFoundError("/tmp/gone/world/downloads/github.com/x.zip\n" + "more detail\n" * 500)

    result = run.run_isolated("bench_broken", broken)
    (row,) = result.table_rows()
    assert row["pass"] is False
    assert row["measured"] == "FileNotFoundError: /tmp/gone/world/downloads/github.com/x.zip"
    assert result.error is not None and "Traceback" in result.error and "more detail" in result.error
    assert run.exit_status([result]) == 1


def test_the_table_fits_120_columns_and_keeps_every_word() -> None:
    rows: list[run.Row] = [
        {
            "metric": "scale (172,000 files in 15,800 folders): setup no-op re-run vs the hand recipe " * 3,
            "measured": "41.3x (0.21 s vs 8.70 s; configure 5.1 s, ninja 1.2 s, pip install 2.4 s) " * 2,
            "goal": ">= 20x",
            "pass": True,
        },
        {"metric": "doctor on the GPU / collect_env", "measured": "no GPU here", "goal": "<= 0.25", "pass": None},
        {"metric": "x", "measured": "y" * 300, "goal": "-", "pass": False},
    ]
    lines = run.format_table(rows)
    assert all(len(line) <= run.WIDTH for line in lines), max(len(line) for line in lines)
    widths = run.column_widths([[str(r["metric"]), str(r["measured"]), str(r["goal"]), "skip"] for r in rows])
    starts = [sum(widths[:i]) + 2 * i for i in range(len(widths))]
    columns = [
        "".join("".join(line[a : a + w].split()) for line in lines[2:]) for a, w in zip(starts, widths, strict=True)
    ]
    for key, column in zip(("metric", "measured"), columns[:2], strict=True):
        assert column == "".join("".join(str(row[key]).split()) for row in rows)  # wrapped, nothing lost
    assert any(line.rstrip().endswith("skip") for line in lines)


def test_the_markdown_table_is_one_line_a_row_with_its_bars_escaped() -> None:
    rows: list[run.Row] = [
        {"metric": "bisect / hand `git bisect run`", "measured": "1.36: a | b", "goal": "<= 1.5", "pass": True},
        {"metric": "doctor on the GPU", "measured": "skipped: no GPU", "goal": "<= 0.25", "pass": None},
        {"metric": "no-op", "measured": "0.43 s", "goal": "<= 0.3 s", "pass": False},
    ]
    lines = run.markdown_table(rows)
    assert lines[:2] == ["| metric | measured | goal | pass |", "|---|---|---|---|"]
    assert lines[2] == "| bisect / hand `git bisect run` | 1.36: a \\| b | <= 1.5 | yes |"
    assert [line.rsplit("|", 2)[1].strip() for line in lines[2:]] == ["yes", "skip", "NO"]


def test_skipped_rows_fail_nothing_and_no_rows_is_a_failure() -> None:
    skipped = run.Result("bench_gpu", [{"metric": "m", "measured": "no GPU", "goal": "g", "pass": None}])
    assert run.exit_status([skipped]) == 0
    assert run.exit_status([]) == 1


def test_what_a_benchmark_changes_is_put_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRITONDEV_JOBS", "3")
    cwd, home, path = os.getcwd(), os.environ.get("HOME"), list(sys.path)
    seen: dict[str, object] = {}

    def messy() -> list[run.Row]:
        seen.update(home=os.environ["HOME"], jobs=os.environ.get("TRITONDEV_JOBS"), tmp=tempfile.gettempdir())
        os.environ["LEAKED"] = "1"
        os.chdir(tmp_path)
        sys.path.insert(0, str(tmp_path))
        sys.modules["tests.perf._leaked_module"] = ModuleType("tests.perf._leaked_module")
        return [{"metric": "m", "measured": "1", "goal": "-", "pass": True}]

    result = run.run_isolated("bench_messy", messy)
    assert result.error is None
    assert seen["jobs"] is None and seen["home"] != home and str(seen["tmp"]).startswith(str(seen["home"])[:-4])
    assert not Path(str(seen["home"])).exists()
    assert "LEAKED" not in os.environ and os.environ["TRITONDEV_JOBS"] == "3" and os.environ.get("HOME") == home
    assert os.getcwd() == cwd and sys.path == path and "tests.perf._leaked_module" not in sys.modules


def test_a_new_bench_file_is_picked_up_without_editing_the_harness(tmp_path: Path) -> None:
    for name in ("bench_setup.py", "bench_distcc.py", "setup_runs.py", "bench_notes.txt"):
        (tmp_path / name).write_text("")
    assert run.discover([], tmp_path) == ["bench_distcc", "bench_setup"]
    assert run.discover(["distcc"], tmp_path) == ["bench_distcc"]


def test_random_order_is_repeatable_from_its_seed() -> None:
    names = [f"bench_{i}" for i in range(8)]
    shuffled, seed = run.order_of(names, "random", 7)
    assert seed == 7 and sorted(shuffled) == names and run.order_of(names, "random", 7)[0] == shuffled
    assert run.order_of(names, "name", None) == (names, None)


def test_leftovers_wait_for_the_end_of_the_run_and_the_next_benchmark_never_sees_them() -> None:
    leftovers: list[Path] = []
    seen: dict[str, str] = {}

    def first() -> list[run.Row]:
        (Path(tempfile.gettempdir()) / "scratch").write_text("first's files")
        seen["first"] = tempfile.gettempdir()
        return [{"metric": "m", "measured": "1", "goal": "-", "pass": True}]

    def second() -> list[run.Row]:
        seen["second"] = tempfile.gettempdir()
        return [{"metric": "m", "measured": "1", "goal": "-", "pass": True}]

    run.run_isolated("bench_first", first, leftovers)
    run.run_isolated("bench_second", second, leftovers)
    assert seen["first"] != seen["second"] and not (Path(seen["second"]) / "scratch").exists()
    assert (Path(seen["first"]) / "scratch").read_text() == "first's files"  # kept until the run ends
    assert len(leftovers) == 2
    for folder in leftovers:
        shutil.rmtree(folder)
