"""The benchmark table is complete: `tests/perf/run.py` runs every benchmark module, each one gives rows
with a goal and a pass mark, and one that breaks shows up as a failed row instead of vanishing.

The benchmarks themselves take minutes and are run by `python tests/perf/run.py`, not here.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import types
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[2] / "perf"


def _runner() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("tritondev_perf_run", PERF / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_every_benchmark_module_is_collected() -> None:
    on_disk = sorted(p.stem for p in PERF.glob("bench_*.py"))
    assert {"bench_fetch", "bench_compile", "bench_doctor", "bench_setup", "bench_startup"} <= set(on_disk)
    assert _runner().discover([]) == on_disk


@pytest.mark.parametrize("module", sorted(p.name for p in PERF.glob("bench_*.py")))
def test_benchmark_module_has_run_and_goals(module: str) -> None:
    tree = ast.parse((PERF / module).read_text())
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "run" in functions, f"{module} has no run() -> list[dict]"
    text = (PERF / module).read_text()
    for key in ('"metric"', '"measured"', '"goal"', '"pass"'):
        assert key in text, f"{module}: rows need {key}"


def test_a_broken_benchmark_is_a_failed_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = _runner()
    package = tmp_path / "tests" / "perf"
    package.mkdir(parents=True)
    (tmp_path / "tests" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "bench_broken.py").write_text("def run():\n    raise RuntimeError('no such tool')\n")
    (package / "bench_fine.py").write_text(
        "def run():\n    return [{'metric': 'm', 'measured': '1', 'goal': '<= 2', 'pass': True}]\n"
    )
    monkeypatch.setattr(runner, "HERE", package)
    for name in [n for n in sys.modules if n == "tests" or n.startswith("tests.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    status = runner.main([])
    out = capsys.readouterr().out
    assert status == 1
    assert "bench_broken: failed to run" in out and "no such tool" in out
    assert out.splitlines()[0].split() == ["metric", "measured", "goal", "pass"]
    assert any(line.startswith("m ") and line.rstrip().endswith("yes") for line in out.splitlines())
