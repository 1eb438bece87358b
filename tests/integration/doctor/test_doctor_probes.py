"""How doctor asks the target: one start of the target Python answers `import triton`, the ptxas Triton
chooses for the arch and the compile proof. Real triton 3.9.0 from the package index; no GPU needed
(--arch: the proof is an ahead-of-time compile)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import bootstrap
from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.support.environ import child_environ
from tests.support.venvs import triton_venv

TRITON_PROBE = "tritondev_triton.py"
COMPILE_PROBE = "tritondev_compile_check.py"


def started(stderr: str, script: str) -> int:
    """How many commands `-v` echoed that run `script`."""
    return sum(1 for line in stderr.splitlines() if line.startswith("$ ") and script in line)


def test_one_start_of_the_target_answers_import_ptxas_and_the_proof(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    proc = cli(
        "doctor",
        "--python",
        str(py),
        "--workspace",
        str(tmp_path / "ws"),
        "--arch",
        "sm_90",
        "--check",
        "packages",
        "--check",
        "ptxas",
        "--json",
        "-v",
    )
    checks = checks_of(proc.stdout)
    assert checks["ptxas.arch"]["status"] == "ok", checks["ptxas.arch"]
    assert "Triton 3.9.0 compiles for sm_90" in checks["ptxas.arch"]["summary"]
    assert checks["packages.triton-import"]["status"] == "ok", checks["packages.triton-import"]
    assert started(proc.stderr, TRITON_PROBE) == 1, proc.stderr
    assert started(proc.stderr, COMPILE_PROBE) == 0, proc.stderr
    assert proc.returncode == 0


def test_the_compile_proof_does_not_read_all_of_libtriton_for_its_throwaway_cache_key(tmp_path: Path) -> None:
    """Triton keys every compile with triton_key(), a hash of the whole of libtriton (hundreds of MB:
    most of the proof's time). The proof compiles into a fresh cache that is thrown away, so it keys
    without it: what the process read through read() stays far below libtriton's size, and a cubin is
    still made."""
    py = triton_venv()
    scripts = Path(bootstrap.__file__).parent / "core" / "target" / "scripts"
    libtriton = next((py.parent.parent / "lib").glob("python3*/site-packages/triton/_C/libtriton*.so"))
    measure = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(scripts)!r})\n"
        "import tritondev_compile_check\n"
        "answer = tritondev_compile_check.answer(90)\n"
        "io = dict(line.split(': ') for line in open('/proc/self/io').read().splitlines())\n"
        "print(json.dumps({'answer': answer, 'rchar': int(io['rchar'])}))\n"
    )
    env = {**child_environ(), "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(py), "-c", measure], capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    result = json.loads(proc.stdout)
    assert result["answer"]["ok"] is True, result["answer"]
    assert "cubin" in result["answer"]["stages"]
    assert result["rchar"] < libtriton.stat().st_size // 4, (result["rchar"], libtriton.stat().st_size)
