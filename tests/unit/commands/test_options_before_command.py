"""The common options before the command name (`tritondev --workspace W doctor`), and small CLI habits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bootstrap import cli
from bootstrap.commands.options import accepted_options
from bootstrap.core.io.json_fields import Fields
from bootstrap.kernels.verify import describe_active
from bootstrap.kernels.verify_facts import TritonFacts
from bootstrap.kernels.verify_facts import triton_facts as _read_triton


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


def test_options_before_the_command_count_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRITONDEV_WORKSPACE", raising=False)
    code, out, err = run_main(["--workspace", str(tmp_path / "ws"), "--json", "config", "show"], capsys)
    assert code == 0, err
    rows = json.loads(out)["settings"]
    assert rows["workspace"]["value"] == str(tmp_path / "ws") and rows["workspace"]["source"] == "cli:--workspace"
    # Given after it as well, the later one wins.
    code, out, _ = run_main(
        ["--workspace", "/nowhere", "config", "show", "--json", "--workspace", str(tmp_path)], capsys
    )
    assert json.loads(out)["settings"]["workspace"]["value"] == str(tmp_path)


def test_an_option_the_command_does_not_take_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["--dry-run", "config", "show", "--workspace", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert "error: this command has no option --dry-run (given before the command name)" in err


def test_every_cache_command_takes_python() -> None:
    accepts = accepted_options(cli.build_app())
    assert {"--python", "--workspace"} <= accepts["cache clear"]
    assert all("--python" in accepts[f"cache {name}"] for name in ("ls", "show", "clear", "prune"))


def _triton(active: dict[str, object] | None = None, active_error: str | None = None) -> TritonFacts:
    """The probe's triton facts as tritondev_probe.py answers them."""
    return _read_triton(
        Fields(
            {"version": "3.5.0", "file": "/t", "source_build": False, "active": active, "active_error": active_error},
            "tritondev_probe.py: triton",
        )
    )


def test_no_active_driver_is_said_plainly() -> None:
    shown = describe_active(_triton(None, "RuntimeError: 0 active drivers ([]). There should only be one."))
    assert "There should only be one" not in shown and "Triton found no GPU driver it can use" in shown
    assert describe_active(_triton({"backend": "cuda", "arch": 90, "warp_size": 32})) == "cuda:90 (warp 32)"
    assert describe_active(_triton({"backend": "hip", "arch": "gfx942", "warp_size": 64})) == "hip:gfx942 (warp 64)"
    assert describe_active(_triton(active_error="ImportError: libcuda.so.1")) == "none (ImportError: libcuda.so.1)"
