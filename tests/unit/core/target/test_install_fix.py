"""The one rule for fix lines that install a package (bootstrap.core.target.inside.install_fix)."""

from __future__ import annotations

from pathlib import Path

from bootstrap.core.target.inside import InstallTarget, install_fix

VENV = InstallTarget(Path("/ws/venv/bin/python"), True, "3.6.0+git1234abcd", Path("/ws/venv"))


def test_torch_never_replaces_the_installed_triton() -> None:
    fix = install_fix("torch", VENV)
    assert fix.startswith("/ws/venv/bin/python -m pip install torch 'triton==3.6.0+git1234abcd'")
    assert install_fix("torch", InstallTarget(Path("/v/bin/python"))) == "/v/bin/python -m pip install torch"


def test_a_system_interpreter_gets_the_workspace_venv_not_pip() -> None:
    system = InstallTarget(Path("/usr/bin/python3"), False, None, Path("/home/me/tritondev/venv"))
    for package in ("triton", "torch", "numpy"):
        fix = install_fix(package, system)
        assert "pip install" not in fix and "builds Triton into /home/me/tritondev/venv" in fix


def test_others_are_plain() -> None:
    assert install_fix("numpy", VENV) == "/ws/venv/bin/python -m pip install numpy"
    assert install_fix("triton", VENV).endswith("(or build it from source: tritondev setup)")
