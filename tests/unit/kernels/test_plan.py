"""Pure parts of compile and verify: the plan, tool lookup, event lines, failure headlines, mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.core.io.json_fields import BadField, Fields
from bootstrap.core.target import inside
from bootstrap.kernels.compile import MARKER_FILE, plan_compile
from bootstrap.kernels.diagnostics import headline, ptxas_fix
from bootstrap.kernels.targets import parse_targets
from bootstrap.kernels.verify import choose_mode
from bootstrap.kernels.verify_facts import ProbedEnvironment, probed_environment

SIG = "x_ptr=*fp32:16,n=i32"


def _source(tmp_path: Path) -> Path:
    path = tmp_path / "k.py"
    path.write_text("# kernels\n")
    return path


def test_plan_runs_cuda_first_and_reports_in_the_users_order(tmp_path: Path) -> None:
    targets = parse_targets(["hip:gfx942", "cuda:90", "cuda:80"])
    plan = plan_compile(_source(tmp_path), "k", SIG, {"BLOCK": "1024"}, targets, tmp_path / "out")
    assert [t.label for t in plan.targets] == ["hip:gfx942", "cuda:90", "cuda:80"]
    assert [t.label for t in plan.run_order] == ["cuda:90", "cuda:80", "hip:gfx942"]
    request = plan.request()
    assert [t["folder"] for t in request["targets"]] == ["cuda-90", "cuda-80", "hip-gfx942"]
    assert request["params"] == [
        {"name": "x_ptr", "type": "*fp32", "divisibility": 16},
        {"name": "n", "type": "i32", "divisibility": None},
    ]
    assert request["constexprs"] == {"BLOCK": 1024}
    assert Path(request["out"]).is_absolute()
    assert not (tmp_path / "out").exists()  # planning writes nothing
    assert [t["label"] for t in plan.request(targets[:1])["targets"]] == ["hip:gfx942"]


def test_plan_rejects_what_it_must_not_touch(tmp_path: Path) -> None:
    source = _source(tmp_path)
    targets = parse_targets(["cuda:90"])
    with pytest.raises(UsageError, match="no --target"):
        plan_compile(source, "k", SIG, {}, [], tmp_path / "o")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is not a folder"):
        plan_compile(source, "k", SIG, {}, targets, tmp_path / "file")
    with pytest.raises(UsageError, match="is not a file"):
        plan_compile(tmp_path, "k", SIG, {}, targets, tmp_path / "o")
    foreign = tmp_path / "o" / "cuda-90"
    foreign.mkdir(parents=True)
    (foreign / "mine.txt").write_text("keep")
    with pytest.raises(UsageError, match="not written by tritondev compile"):
        plan_compile(source, "k", SIG, {}, targets, tmp_path / "o")
    (foreign / MARKER_FILE).write_text("")
    assert plan_compile(source, "k", SIG, {}, targets, tmp_path / "o").out_dir == tmp_path / "o"


def test_event_lines() -> None:
    assert inside.parse_event('@@tritondev {"event": "done"}') == {"event": "done"}
    assert inside.parse_event("@@tritondev {broken") is None
    assert inside.parse_event('print("@@tritondev")') is None
    text = 'hello\n@@tritondev {"event": "a"}\nworld\n@@tritondev [1]\n'
    assert inside.events(text) == [{"event": "a"}]


def test_failure_headline_and_ptxas_fix() -> None:
    tail = [
        "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
        "`ptxas` stderr:",
        "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        "Repro command: ptxas ...",
    ]
    assert headline(tail) == "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"
    assert "TRITON_PTXAS_BLACKWELL_PATH" in (ptxas_fix(tail) or "")
    assert headline(["RuntimeError: PassManager::run failed"]) == "RuntimeError: PassManager::run failed"
    assert ptxas_fix(["RuntimeError: PassManager::run failed"]) is None
    assert headline([]) == "no output"


def _probed(torch: dict[str, object] | None) -> ProbedEnvironment:
    """tritondev_probe.py's `env` event with this torch (None: not installed)."""
    triton = {"version": "3.5.0", "file": "/t", "source_build": False}
    return probed_environment(Fields({"triton": triton, "torch": torch}, "tritondev_probe.py"))


def test_mode_follows_torch_seeing_a_gpu() -> None:
    torch = {"version": "2.9.0", "file": "/torch"}
    assert choose_mode(_probed({**torch, "gpu": True})) == "gpu"
    assert choose_mode(_probed({**torch, "gpu": False})) == "interpreter"
    assert choose_mode(_probed(None)) == "interpreter"


def test_a_probe_answer_not_as_agreed_names_the_field() -> None:
    with pytest.raises(BadField, match=r"tritondev_probe.py: torch: 'gpu' is str, not bool"):
        _probed({"version": "2.9.0", "file": "/torch", "gpu": "yes"})
    with pytest.raises(BadField, match=r"capability\[1\] is str, not int"):
        _probed({"version": "2.9.0", "file": "/torch", "gpu": True, "capability": [9, "0"]})
