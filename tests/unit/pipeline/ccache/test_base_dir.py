"""ccache's base_dir for LLVM's build steps (bootstrap.pipeline.ccache.base_dir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.pipeline.ccache.base_dir import LLVM_BUILD_STEPS, llvm_base_dir_env


@pytest.mark.parametrize("step", LLVM_BUILD_STEPS)
def test_llvms_steps_get_the_workspace_as_base_dir(step: str) -> None:
    assert llvm_base_dir_env(step, Path("/w/ws"), {}) == {"CCACHE_BASEDIR": "/w/ws"}


@pytest.mark.parametrize("step", ["llvm-configure", "triton-install", "triton-build", "checkout-llvm-project", "venv"])
def test_other_steps_get_nothing(step: str) -> None:
    """Triton's compile errors keep the absolute path of the file a developer edits."""
    assert llvm_base_dir_env(step, Path("/w/ws"), {}) == {}


def test_a_base_dir_the_user_set_is_kept() -> None:
    assert llvm_base_dir_env("llvm-build", Path("/w/ws"), {"CCACHE_BASEDIR": "/home/me"}) == {}
    assert llvm_base_dir_env("llvm-build", Path("/w/ws"), {"CCACHE_BASEDIR": ""}) == {}
