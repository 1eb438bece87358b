"""`tritondev compile`'s entry (bootstrap.kernels.compiling): bad inputs are refused before the target
environment is asked anything (the context is never touched: no probe, no process)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.kernels.compiling import compile_kernel
from bootstrap.kernels.targets import parse_target

if TYPE_CHECKING:
    from bootstrap.core.context import AppContext


class Untouchable:
    """Stands for the context: any use of it fails the test (compile must refuse before using it)."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the context was used ({name}) before the inputs were checked")


CTX = cast("AppContext", Untouchable())


def test_a_missing_kernel_file_is_refused_first(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        compile_kernel(CTX, tmp_path / "gone.py", "add", None, {}, [parse_target("cuda:90")], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_no_target_and_an_out_that_is_a_file_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text("def add(): pass\n")
    with pytest.raises(UsageError, match="no --target given"):
        compile_kernel(CTX, source, "add", None, {}, [], tmp_path / "out")
    (tmp_path / "out").write_text("a file")
    with pytest.raises(UsageError, match="exists and is not a folder"):
        compile_kernel(CTX, source, "add", None, {}, [parse_target("cuda:90")], tmp_path / "out")
