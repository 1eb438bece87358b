"""`repro capture`'s request before anything runs: bad --kernel / --io-limit refused, the variables that travel
into the run (Inductor's defaults only where the user set none), and the hook first on PYTHONPATH."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.ir.capture import RunRequest
from bootstrap.repro.capture import INDUCTOR_DEFAULTS, CaptureRequest, _variables, _with_hook, check_request


@pytest.mark.parametrize("kernel", ["", "  ", "a/b", "k\x00", "two\nlines"])
def test_a_kernel_that_is_no_name_or_glob_is_refused(kernel: str) -> None:
    with pytest.raises(UsageError, match="is not a kernel name or glob") as info:
        check_request(CaptureRequest(("python", "m.py"), kernel=kernel))
    assert info.value.fix and "--kernel" in info.value.fix


def test_an_io_limit_of_nothing_is_refused_and_globs_pass() -> None:
    with pytest.raises(UsageError, match="--io-limit must be more than 0"):
        check_request(CaptureRequest(("python",), io_limit=0))
    check_request(CaptureRequest(("python",), kernel="triton_per_*"))


def test_the_run_gets_the_capture_config_and_inductor_defaults_it_did_not_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHINDUCTOR_COMPILE_THREADS", raising=False)
    monkeypatch.setenv("TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER", "1")  # the user's own choice stays
    request = CaptureRequest(("python", "m.py"), kernel="add*", save_io=True, io_limit=1024)
    variables = _variables(request, Path("/cap"))
    assert json.loads(variables["TRITONDEV_CAPTURE"] or "") == {
        "dir": "/cap",
        "kernel": "add*",
        "save_io": True,
        "io_limit": 1024,
    }
    assert variables["TORCHINDUCTOR_COMPILE_THREADS"] == INDUCTOR_DEFAULTS["TORCHINDUCTOR_COMPILE_THREADS"]
    assert "TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER" not in variables


def test_the_hook_goes_first_on_the_path_and_the_rest_of_the_run_is_kept() -> None:
    run = RunRequest(("python", "m.py"), variables={"A": "1"}, output_to_stderr=True)
    hooked = _with_hook(run, Path("/hook"))
    assert hooked.pythonpath_first == Path("/hook")
    assert (hooked.command, hooked.variables, hooked.output_to_stderr) == (run.command, run.variables, True)
