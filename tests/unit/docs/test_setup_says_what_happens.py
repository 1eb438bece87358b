"""setup's --help and the README say where setup installs and when it purges, as the plan does it."""

from __future__ import annotations

import re

import pytest

from bootstrap import cli
from tests.conftest import REPO


def test_help_names_the_order_and_the_active_env(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    with pytest.raises(SystemExit):
        cli.main(["setup", "--help"])
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", capsys.readouterr().out).split())
    assert "build LLVM/MLIR, purge other tritons, build and install Triton, verify" in text
    assert "else the active virtualenv or conda env, else <workspace>/venv" in text
    assert "Purge other tritons, resolve pins" not in text  # purge is not the first thing setup does


def test_the_plan_purges_after_llvm_and_before_the_triton_install() -> None:
    source = (REPO / "bootstrap" / "pipeline" / "setup" / "plan.py").read_text()
    body = source[source.index("steps += [checkout_step(facts.triton), *llvm]") :]
    assert body.index("purge_step(facts)") < body.index("install_step(")


def test_the_readme_says_the_active_env_is_used_by_setup_too() -> None:
    readme = (REPO / "README.md").read_text()
    assert "`setup` installs into\n`--python`, else the active virtualenv or conda env, else its own" in readme
    assert "unless `--python` names another" not in readme
