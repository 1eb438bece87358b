"""Fix lines that install packages: never one that replaces the Triton in the environment (a plain
`pip install torch` swaps a source build for torch's pinned wheel), never one into a system interpreter,
and doctor checks what `tritondev verify` needs before verify stops for it. Real venvs, real pip, tiny real
wheels from a local folder (no index). The torch wheels stand in for torch releases that pin a Triton
(`Requires-Dist: triton==X`): what matters here is their metadata, which real torch wheels of the
needed pins cannot give offline; they carry only what verify reads of torch (version, CUDA, no GPU)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.integration.doctor.wheels import build_wheel
from tests.support.venvs import fresh_venv

BUILT = "3.5.0+git7416ffcb"  # as a source build of Triton names itself


def _torch(version: str) -> dict[str, str]:
    return {
        "torch/__init__.py": f"from . import cuda, version\n__version__ = '{version}'\n",
        "torch/version.py": "cuda = None\nhip = None\n",
        "torch/cuda.py": "def is_available():\n    return False\n",
    }


def _wheels(folder: Path, *, compatible_torch: bool) -> Path:
    build_wheel(folder, "triton", BUILT, {"triton/__init__.py": f"__version__ = '{BUILT}'\n"})
    build_wheel(folder, "triton", "3.6.0", {"triton/__init__.py": "__version__ = '3.6.0'\n"})
    build_wheel(folder, "torch", "2.10.0", _torch("2.10.0"), requires=["triton==3.6.0"])
    if compatible_torch:
        build_wheel(folder, "torch", "2.9.0", _torch("2.9.0"), requires=["triton==3.5.0"])
    return folder


def _pip_env(wheels: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {
        **env,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def _installed(python: Path) -> dict[str, str]:
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split("==", 1) for line in out.splitlines() if "==" in line)


def _venv_with_built_triton(path: Path, wheels: Path) -> Path:
    python = fresh_venv(path)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"triton=={BUILT}"], check=True, env=_pip_env(wheels))
    return python


def _follow(fix: str, wheels: Path) -> subprocess.CompletedProcess[str]:
    """Run the fix line's command as printed (the words before its two-space comment)."""
    return subprocess.run(shlex.split(fix.split("  (")[0]), capture_output=True, text=True, env=_pip_env(wheels))


@pytest.mark.slow
@pytest.mark.parametrize("compatible_torch", [True, False], ids=["a-torch-pins-it", "no-torch-pins-it"])
def test_the_torch_fix_keeps_the_triton_that_was_built(cli: Cli, tmp_path: Path, compatible_torch: bool) -> None:
    wheels = _wheels(tmp_path / "wheels", compatible_torch=compatible_torch)
    python = _venv_with_built_triton(tmp_path / "venv", wheels)
    proc = cli("verify", "--python", str(python), "--workspace", str(tmp_path / "ws"))
    assert proc.returncode == 3, proc.stderr
    fix = next(line for line in proc.stderr.splitlines() if line.startswith("fix: "))[len("fix: ") :]
    assert fix.startswith(f"{python} -m pip install torch 'triton=={BUILT}'"), fix
    followed = _follow(fix, wheels)
    after = _installed(python)
    assert after["triton"] == BUILT, "the fix replaced the Triton that was built"
    if compatible_torch:
        assert followed.returncode == 0 and after["torch"] == "2.9.0"
    else:
        assert followed.returncode != 0 and "torch" not in after  # pip stopped; nothing changed
        # Why it matters: today's plain `pip install torch` swaps the build for torch's pinned wheel.
        plain = _venv_with_built_triton(tmp_path / "plain", wheels)
        subprocess.run([str(plain), "-m", "pip", "install", "-q", "torch"], check=True, env=_pip_env(wheels))
        assert _installed(plain)["triton"] == "3.6.0"


def test_doctor_says_what_verify_needs_before_verify_stops(cli: Cli, tmp_path: Path) -> None:
    wheels = _wheels(tmp_path / "wheels", compatible_torch=True)
    python = _venv_with_built_triton(tmp_path / "venv", wheels)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "torch==2.9.0"], check=True, env=_pip_env(wheels))
    ws = tmp_path / "ws"
    verify = cli("verify", "--python", str(python), "--workspace", str(ws))
    assert verify.returncode == 3 and "No module named 'numpy'" in verify.stderr  # no GPU: the interpreter
    doctor = cli(
        "doctor", "--python", str(python), "--workspace", str(ws), "--check", "packages.verify-needs", "--json"
    )
    assert doctor.returncode == 1, doctor.stdout
    found = checks_of(doctor.stdout)["packages.verify-needs"]
    assert found["status"] == "error" and "numpy not installed" in found["summary"]
    assert found["fix"] == f"{python} -m pip install numpy"


def test_a_system_interpreter_is_never_told_to_pip_install(cli: Cli, tmp_path: Path) -> None:
    system = Path("/usr/bin/python3")
    probe = (
        subprocess.run(
            [
                str(system),
                "-c",
                "import sys, importlib.util; "
                "print(sys.prefix == sys.base_prefix, importlib.util.find_spec('triton') is None)",
            ],
            capture_output=True,
            text=True,
        )
        if system.exists()
        else None
    )
    if probe is None or probe.stdout.split() != ["True", "True"]:
        pytest.skip("needs a system python3 without triton at /usr/bin/python3")
    ws = tmp_path / "ws"
    verify = cli("verify", "--python", str(system), "--workspace", str(ws))
    assert verify.returncode == 3
    assert (
        f"fix: not into the system Python {system}: `tritondev setup --workspace {ws} --python {system}` builds "
        f"Triton into {ws / 'venv'}" in verify.stderr
    ), verify.stderr
    assert "-m pip install triton" not in verify.stderr
    doctor = cli("doctor", "--python", str(system), "--workspace", str(ws), "--check", "python.venv", "--json")
    fix = checks_of(doctor.stdout)["python.venv"]["fix"]
    assert f"builds Triton into {ws / 'venv'}; every command uses that venv once it exists" in fix
    assert "then pass --python" not in fix
