"""Which interpreter a command targets (core.interpreter): the order, and the reading commands' last resort."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.core.process.runner import Runner
from bootstrap.core.target.interpreter import (
    PATH_PYTHON,
    WORKSPACE_VENV,
    Target,
    choose_interpreter,
    first_python_on_path,
    origin_of_setting,
    own_interpreter_dirs,
    why_chosen,
)


def _python(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "python3"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


def test_the_order_of_the_choice(tmp_path: Path) -> None:
    venv = tmp_path / "ws" / "venv"
    on_path = _python(tmp_path / "usr" / "bin")
    given = _python(tmp_path / "given" / "bin")
    active = {"VIRTUAL_ENV": str(tmp_path / "active")}
    assert choose_interpreter(given, venv, active, path_python=on_path) == (given, "--python")
    assert choose_interpreter(None, venv, active, path_python=on_path)[1] == "$VIRTUAL_ENV"
    assert choose_interpreter(None, venv, {"CONDA_PREFIX": "/c"}, path_python=on_path)[1] == "$CONDA_PREFIX"
    # Nothing given, no venv yet: installing commands keep the workspace venv, reading ones take PATH's.
    assert choose_interpreter(None, venv, {}) == (venv / "bin" / "python", WORKSPACE_VENV)
    assert choose_interpreter(None, venv, {}, path_python=on_path) == (on_path, PATH_PYTHON)
    assert choose_interpreter(None, venv, {}, path_python=None)[1] == WORKSPACE_VENV
    # Once the workspace venv exists, it is the target of every command.
    made = _python(venv / "bin")
    assert choose_interpreter(None, venv, {}, path_python=on_path) == (made, WORKSPACE_VENV)


def test_the_origin_names_where_the_setting_came_from(tmp_path: Path) -> None:
    exe = _python(tmp_path / "bin")
    assert choose_interpreter(exe, tmp_path, {}, python_source="env:TRITONDEV_PYTHON")[1] == "$TRITONDEV_PYTHON"
    assert origin_of_setting("file:/w/tritondev.toml") == "python in /w/tritondev.toml"
    remembered = origin_of_setting("workspace:/w/state/settings.json")
    assert remembered == "python remembered from setup (/w/state/settings.json)"
    assert origin_of_setting("cli:--python") == "--python"
    assert "no workspace venv at /w/venv" in why_chosen(PATH_PYTHON, Path("/w/venv"))
    assert why_chosen("$VIRTUAL_ENV", Path("/w/venv")) == "the active environment ($VIRTUAL_ENV)"


def test_first_python_on_path_skips_tritondevs_own_and_what_is_not_one(tmp_path: Path) -> None:
    own = _python(tmp_path / "tool-venv" / "bin")
    empty = tmp_path / "empty"
    empty.mkdir()
    not_executable = tmp_path / "noexec"
    not_executable.mkdir()
    (not_executable / "python3").write_text("")
    a_folder = tmp_path / "dir-named-python3"
    (a_folder / "python3").mkdir(parents=True)
    system = _python(tmp_path / "usr" / "bin")
    later = _python(tmp_path / "later" / "bin")
    path = os.pathsep.join(
        ["", str(empty), str(own.parent), str(not_executable), str(a_folder), str(system.parent), str(later.parent)]
    )
    assert first_python_on_path(path, (own.parent,)) == system
    assert first_python_on_path(path) == own
    # The same folder reached through a link is still tritondev's own.
    link = tmp_path / "link-to-tool"
    link.symlink_to(own.parent)
    assert first_python_on_path(os.pathsep.join([str(link), str(system.parent)]), (own.parent,)) == system
    assert first_python_on_path(str(empty)) is None
    assert first_python_on_path("") is None


def _as_venv(monkeypatch: pytest.MonkeyPatch, prefix: Path) -> Path:
    # The rule reads the running interpreter (sys.prefix, its site-packages). A unit test starts no
    # process, so it cannot run tritondev from another venv: this one is made to look as if it were.
    site = prefix / "lib" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    monkeypatch.setattr(sys, "executable", str(prefix / "bin" / "python3"))
    real = sysconfig.get_paths
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: {**real(*a, **k), "purelib": str(site)})
    return site


def test_tritondevs_private_venv_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _as_venv(monkeypatch, tmp_path / "venv-tool")
    assert own_interpreter_dirs() == (tmp_path / "venv-tool" / "bin",)


@pytest.mark.parametrize("dist", ["torch-2.11.0.dist-info", "triton-3.6.0.dist-info", "pytorch_triton-3.4.0.dist-info"])
def test_a_venv_holding_torch_or_triton_is_the_users(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, dist: str
) -> None:
    """tritondev installed into the user's venv (on PATH, not activated): that python3 is a fair target."""
    site = _as_venv(monkeypatch, tmp_path / "venv")
    (site / dist).mkdir()
    assert own_interpreter_dirs() == ()


def test_a_probe_started_ahead_raises_where_its_result_is_asked_for(tmp_path: Path) -> None:
    """setup starts the target's probe beside its git reads; the probe's error (here: no interpreter at the
    path, found before any process starts) is raised by `python`, as a probe of its own would raise it, and
    nothing is remembered, so that asking again probes again."""
    target = Target(tmp_path / "no-python", "--python")
    runner = Runner(silent=True)
    target.probe_ahead(runner)
    target.probe_ahead(runner)  # started once
    for _ in range(2):
        with pytest.raises(ConfigError, match="does not exist"):
            target.python(runner)
        assert target.probed is None
