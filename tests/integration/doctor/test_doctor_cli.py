"""The doctor through the real CLI: selection, bad input, exit codes, read-only, real broken states."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of
from tests.integration.doctor.wheels import build_wheel
from tests.support.venvs import fresh_venv, triton_venv


def test_list_checks_names_every_check(cli: Cli) -> None:
    result = cli("doctor", "--list-checks", "--json")
    assert result.returncode == 0, result.stderr
    names = [c["name"] for c in json.loads(result.stdout)["checks"]]
    assert len(names) >= 25 and len(set(names)) == len(names)
    assert {"ptxas.arch", "packages.triton-owners", "toolchain.cmake", "jax.triton-ffi"} <= set(names)
    text = cli("doctor", "--list-checks", "--check", "ptxas")
    assert text.stdout.split()[0] == "ptxas.arch" and "toolchain" not in text.stdout


def test_bad_input_exits_2_with_a_suggestion_and_no_traceback(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result = cli("doctor", "--check", "ptxas.arc", "--workspace", str(ws))
    assert result.returncode == 2
    assert "did you mean 'ptxas.arch'" in result.stderr and "Traceback" not in result.stderr
    result = cli("doctor", "--arch", "sm_1x", "--workspace", str(ws), "--json")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["exit_code"] == 2
    assert not ws.exists()


def test_missing_target_env_is_an_error_with_the_fix_and_creates_nothing(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    # No --python, no active env, no workspace venv, and no python3 on PATH to fall back to.
    no_python = tmp_path / "bin"
    no_python.mkdir()
    for tool in ("cc", "gcc", "clang"):
        found = shutil.which(tool)
        if found:
            (no_python / tool).symlink_to(found)
    env = {"PATH": str(no_python)}
    result = cli("doctor", "--workspace", str(ws), "--json", "--check", "python", "--check", "packages", env=env)
    assert result.returncode == 1, result.stderr
    checks = checks_of(result.stdout)
    assert checks["python.interpreter"]["status"] == "error"
    assert "tritondev setup" in checks["python.interpreter"]["fix"]
    assert {
        checks[n]["status"]
        for n in checks
        if n != "python.interpreter" and n != "python.c-compiler" and n != "python.env-traps"
    } == {"skipped"}
    assert "error:" not in result.stderr  # the report is the one document; the exit code says it failed
    text = cli("doctor", "--workspace", str(ws), "--check", "python", env=env)
    assert text.returncode == 1 and "Doctor found" in text.stdout
    assert "error:" not in text.stderr  # the report's own verdict says it, once
    assert not ws.exists(), "a read-only doctor run must not create the workspace"


def test_json_report_shape(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    result = cli("doctor", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--json")
    data = json.loads(result.stdout)
    assert {"schema_version", "tritondev_version", "summary", "checks"} <= set(data)
    assert len(data["checks"]) >= 25
    for check in data["checks"]:
        assert {"name", "group", "status", "summary", "details", "fix", "duration_ms"} <= set(check)
        assert check["status"] in ("ok", "warn", "error", "skipped")
        if check["status"] in ("warn", "error"):
            assert check["fix"], f"{check['name']} has no fix"
    summary = data["summary"]
    assert sum(summary[s] for s in ("ok", "warn", "error", "skipped")) == len(data["checks"])
    assert result.returncode == summary["exit_code"] == (1 if summary["error"] else 0)
    assert checks_of(result.stdout)["packages.triton-import"]["status"] == "ok"


def test_missing_tools_are_errors_with_install_fixes(cli: Cli, tmp_path: Path) -> None:
    # A PATH that has git and the compilers but no cmake and no ninja.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "g++", "clang++", "ld.lld", "ccache"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    result = cli(
        "doctor", "--check", "toolchain", "--json", "--workspace", str(tmp_path / "ws"), env={"PATH": str(bin_dir)}
    )
    assert result.returncode == 1, result.stderr
    checks = checks_of(result.stdout)
    assert checks["toolchain.cmake"]["status"] == "error"
    assert "apt-get install cmake" in checks["toolchain.cmake"]["fix"]
    assert checks["toolchain.ninja"]["status"] == "error"
    assert "ninja" in checks["toolchain.ninja"]["fix"]
    assert checks["toolchain.git"]["status"] == "ok"
    # and with every tool on PATH the same checks pass
    full = cli(
        "doctor",
        "--check",
        "toolchain.cmake",
        "--check",
        "toolchain.ninja",
        "--json",
        "--workspace",
        str(tmp_path / "ws"),
    )
    assert full.returncode == 0 and {c["status"] for c in checks_of(full.stdout).values()} == {"ok"}


def test_strict_turns_warnings_into_failure(cli: Cli, tmp_path: Path) -> None:
    args = ("doctor", "--check", "settings", "--workspace", str(tmp_path / "ws"))
    env = {"TRITON_ALWAYS_COMPILE": "1"}
    relaxed = cli(*args, env=env)
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
    assert "TRITON_ALWAYS_COMPILE" in relaxed.stdout and "fix: unset TRITON_ALWAYS_COMPILE" in relaxed.stdout
    assert cli(*args, "--strict", env=env).returncode == 1
    assert cli(*args, "--strict").returncode == 0


def test_environment_traps(cli: Cli, tmp_path: Path) -> None:
    result = cli(
        "doctor",
        "--check",
        "python.env-traps",
        "--json",
        "--workspace",
        str(tmp_path / "ws"),
        env={"PYTHONSAFEPATH": "1", "LLVM_SYSPATH": "../llvm-project/build"},
    )
    check = checks_of(result.stdout)["python.env-traps"]
    assert check["status"] == "warn" and "PYTHONSAFEPATH" in check["summary"]
    assert check["fix"].startswith("unset PYTHONSAFEPATH")
    assert any("LLVM_SYSPATH=../llvm-project/build is relative" in d for d in check["details"])


def test_shadowing_triton_folder_in_the_cwd(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    work = tmp_path / "work"
    (work / "triton").mkdir(parents=True)
    (work / "triton" / "__init__.py").write_text("# a checkout's python folder, say\n")
    result = cli(
        "doctor", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--json", "--check", "packages", cwd=work
    )
    assert result.returncode == 1
    checks = checks_of(result.stdout)
    assert checks["packages.shadowing"]["status"] == "error"
    assert str(work / "triton") in checks["packages.shadowing"]["summary"]
    assert checks["packages.triton-import"]["status"] == "warn"
    assert str(work / "triton") in checks["packages.triton-import"]["summary"]
    # from another directory the same environment is healthy
    other = cli(
        "doctor",
        "--python",
        str(py),
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
        "--check",
        "packages.shadowing",
        cwd=tmp_path,
    )
    assert checks_of(other.stdout)["packages.shadowing"]["status"] == "ok"


def test_empty_triton_folder_becomes_a_namespace_package(cli: Cli, bare_venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "triton").mkdir(parents=True)
    py = bare_venv
    result = cli(
        "doctor", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--json", "--check", "packages", cwd=work
    )
    checks = checks_of(result.stdout)
    assert checks["packages.triton-import"]["status"] == "error"
    assert "namespace package" in checks["packages.triton-import"]["summary"]
    assert checks["packages.shadowing"]["status"] == "error"


def _pip_install(py: Path, *wheels: Path) -> None:
    subprocess.run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            *map(str, wheels),
        ],
        check=True,
    )


@pytest.mark.slow
def test_two_owners_of_triton_and_fix_purges_them(cli: Cli, tmp_path: Path) -> None:
    py = fresh_venv(tmp_path / "venv")
    wheels = tmp_path / "wheels"
    init = "__version__ = '3.5.0'\n"
    a = build_wheel(wheels, "triton", "3.5.0", {"triton/__init__.py": init, "triton/language.py": ""})
    b = build_wheel(wheels, "pytorch-triton", "3.5.0+git7416ffcb", {"triton/__init__.py": init, "triton/jit.py": ""})
    _pip_install(py, a, b)
    ws = tmp_path / "ws"
    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--check", "packages")
    result = cli(*args, "--json")
    assert result.returncode == 1
    owners = checks_of(result.stdout)["packages.triton-owners"]
    assert owners["status"] == "error" and owners["auto_fixable"]
    assert "pytorch-triton 3.5.0+git7416ffcb" in owners["summary"] and "triton 3.5.0" in owners["summary"]

    planned = cli(*args, "--fix", "--dry-run")
    assert "would uninstall" in planned.stdout
    assert not ws.exists(), "--dry-run must not touch the workspace"
    assert cli(*args, "--json").returncode == 1, "--dry-run must not change the environment"

    fixed = cli(*args, "--fix", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    report = json.loads(fixed.stdout)
    assert report["fixes"][0]["action"] == "purge" and report["fixes"][0]["status"] == "fixed"
    assert (ws / "state" / "purge-journal.json").is_file()
    after = checks_of(cli(*args, "--json").stdout)
    assert after["packages.triton-owners"]["status"] == "ok", after["packages.triton-owners"]["summary"]
    assert "not installed" in after["packages.triton-owners"]["summary"]


def test_fix_purges_what_purge_would_with_the_files_only_the_journal_knows(cli: Cli, tmp_path: Path) -> None:
    """doctor --fix plans its purge as `tritondev purge` does: a stash of triton/ that an uninstall killed
    after pip deleted the RECORD is proven Triton's only by the files an earlier purge saved in the journal."""
    py = fresh_venv(tmp_path / "venv")
    wheels, ws = tmp_path / "wheels", tmp_path / "ws"
    init = "__version__ = '3.5.0'\n"
    renamed = build_wheel(
        wheels, "pytorch-triton", "3.5.0+git7416ffcb", {"triton/__init__.py": init, "triton/only_pytorch.py": "Y = 1\n"}
    )
    _pip_install(py, renamed)
    assert cli("purge", "--python", str(py), "--workspace", str(ws)).returncode == 0  # the journal keeps its files
    _pip_install(py, renamed)
    (sp,) = py.parent.parent.glob("lib/python3*/site-packages")
    (sp / "triton").rename(sp / "~riton")  # pip's stash, whose owner's metadata is gone
    shutil.rmtree(next(sp.glob("pytorch_triton-*.dist-info")))
    # Two other distributions own triton/ now: doctor offers to purge them.
    _pip_install(
        py,
        build_wheel(wheels, "triton", "3.5.0", {"triton/__init__.py": init, "triton/language.py": ""}),
        build_wheel(wheels, "triton-xpu", "3.5.0", {"triton/__init__.py": init, "triton/xpu.py": ""}),
    )
    planned = json.loads(cli("purge", "--python", str(py), "--workspace", str(ws), "--dry-run", "--json").stdout)
    assert planned["plan"]["leftovers"] == [str(sp / "~riton")], planned["scan"]

    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--check", "packages")
    fixed = cli(*args, "--fix", "--json")
    assert json.loads(fixed.stdout)["fixes"][0]["status"] == "fixed", fixed.stdout + fixed.stderr
    assert not (sp / "~riton").exists() and not (sp / "triton").exists()
    assert not list(sp.glob("triton*.dist-info"))


@pytest.mark.slow
def test_pypi_placeholder_wheel(cli: Cli, tmp_path: Path) -> None:
    # The real pytorch-triton 0.0.1 from PyPI: its triton/__init__.py raises "Should never be installed".
    py = fresh_venv(tmp_path / "venv", ["--no-deps", "pytorch-triton==0.0.1"])
    args = ("doctor", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--check", "packages", "--json")
    result = cli(*args)
    assert result.returncode == 1, result.stderr
    checks = checks_of(result.stdout)
    assert checks["packages.placeholder"]["status"] == "error"
    assert "pytorch-triton 0.0.1 is PyPI's placeholder" in checks["packages.placeholder"]["summary"]
    assert checks["packages.placeholder"]["auto_fixable"]
    assert checks["packages.triton-import"]["status"] == "error"
    assert "Should never be installed" in checks["packages.triton-import"]["summary"]
    fixed = cli(*args, "--fix")
    assert fixed.returncode == 0, fixed.stdout
    assert checks_of(cli(*args).stdout)["packages.placeholder"]["status"] == "skipped"


def test_triton_commit_differs_from_torch_pin(cli: Cli, tmp_path: Path) -> None:
    # A real nightly torch (which pins triton==X+git<hash>) cannot be downloaded here; a small real
    # distribution named torch with the same Requires-Dist line stands in for it.
    py = fresh_venv(tmp_path / "venv")
    wheels = tmp_path / "wheels"
    torch = build_wheel(
        wheels,
        "torch",
        "2.10.0.dev20260101",
        {"torch/__init__.py": ""},
        requires=['triton==3.5.0+git7416ffcb; platform_system == "Linux"'],
    )
    wrong = build_wheel(wheels, "triton", "3.5.0+gitdeadbeef", {"triton/__init__.py": "__version__ = '3.5.0'\n"})
    _pip_install(py, torch, wrong)
    args = (
        "doctor",
        "--python",
        str(py),
        "--workspace",
        str(tmp_path / "ws"),
        "--json",
        "--check",
        "packages.torch-triton",
    )
    result = cli(*args)
    assert result.returncode == 1
    check = checks_of(result.stdout)["packages.torch-triton"]
    assert check["status"] == "error"
    assert "triton==3.5.0+git7416ffcb" in check["summary"] and "3.5.0+gitdeadbeef" in check["summary"]
    assert "tritondev setup" in check["fix"]
    # the pinned commit installed instead: the same check passes
    right = build_wheel(wheels, "triton", "3.5.0+git7416ffcb", {"triton/__init__.py": "__version__ = '3.5.0'\n"})
    _pip_install(py, right)
    assert checks_of(cli(*args).stdout)["packages.torch-triton"]["status"] == "ok"


def test_stale_cache_entries_are_found_and_only_they_are_cleared(cli: Cli, tmp_path: Path) -> None:
    py = triton_venv()
    cache = tmp_path / "cache"
    # Cache-key names as Triton >= 3.0 writes them (base32 of a sha256): only such folders may go.
    old, fresh, half = cache / ("A" * 52), cache / ("B" * 52), cache / ("C" * 52)
    for entry in (old, fresh):
        entry.mkdir(parents=True)
        (entry / "kernel.cubin").write_bytes(b"x" * 100)
    (half / "tmp.pid_123_abc").mkdir(parents=True)
    (half / "tmp.pid_123_abc" / "kernel.ptx").write_text("half")
    long_ago = 946684800  # 2000-01-01: before any Triton install
    os.utime(old / "kernel.cubin", (long_ago, long_ago))
    env = {"TRITON_CACHE_DIR": str(cache)}
    args = ("doctor", "--python", str(py), "--workspace", str(tmp_path / "ws"), "--check", "cache")
    check = checks_of(cli(*args, "--json", env=env).stdout)["cache.stale"]
    assert check["status"] == "warn" and "2 of 3 entries are stale" in check["summary"]
    result = cli(*args, "--fix", env=env)
    assert "removed 2 stale entries" in result.stdout, result.stdout + result.stderr
    assert fresh.is_dir() and not old.exists() and not half.exists()
    assert checks_of(cli(*args, "--json", env=env).stdout)["cache.stale"]["status"] == "ok"


def test_fix_refuses_while_the_workspace_is_locked(cli: Cli, tmp_path: Path) -> None:
    from bootstrap.core.io.workspace import Workspace

    py = triton_venv()
    cache = tmp_path / "cache"
    half = cache / ("H" * 52)  # a cache-key name; a write interrupted in its tmp.pid_* folder
    (half / "tmp.pid_1_ab").mkdir(parents=True)
    (half / "tmp.pid_1_ab" / "k.ptx").write_text("half")
    ws = tmp_path / "ws"
    args = ("doctor", "--python", str(py), "--workspace", str(ws), "--check", "cache.stale", "--fix")
    with Workspace(ws).lock("setup (held by this test)"):
        result = cli(*args, env={"TRITON_CACHE_DIR": str(cache)})
    assert result.returncode == 6, result.stdout + result.stderr
    assert "locked" in result.stderr and half.is_dir(), "nothing may change under someone else's lock"
    assert cli(*args, env={"TRITON_CACHE_DIR": str(cache)}).returncode == 0
    assert not half.exists()


def test_a_cache_on_nfs_would_be_named(cli: Cli, tmp_path: Path) -> None:
    # No network filesystem can be mounted here; the local case is checked live, NFS in test_units.
    result = cli(
        "doctor",
        "--check",
        "cache.filesystem",
        "--json",
        "--workspace",
        str(tmp_path / "ws"),
        env={"TRITON_CACHE_DIR": str(tmp_path / "c")},
    )
    check = checks_of(result.stdout)["cache.filesystem"]
    assert check["status"] == "ok" and str(tmp_path / "c") in check["summary"]


def test_the_disk_check_estimates_by_what_llvm_auto_decides(cli: Cli, tmp_path: Path) -> None:
    """--llvm auto (the default) counts an LLVM build when this workspace's memory says auto builds the
    pin from source, none when it takes the package, and names both sizes while it is not known here."""
    ws, pin = tmp_path / "ws", "1f126a6dea50d185c0781743a667390037ae88bd"
    (ws / "src" / "triton" / "cmake").mkdir(parents=True)
    (ws / "src" / "triton" / "cmake" / "llvm-hash.txt").write_text(pin + "\n")
    (ws / "src" / "triton" / "setup.py").write_text('TRITON_VERSION = "3.7.0" + os.environ.get("X", "")\n')
    args = ("doctor", "--check", "resources.disk", "--json", "--workspace", str(ws))  # default build types
    unknown = checks_of(cli(*args).stdout)["resources.disk"]["summary"]
    assert "17 GiB with a prebuilt LLVM, 29 GiB with a Release LLVM built here" in unknown
    assert f"--llvm auto decides at setup for LLVM {pin[:12]}" in unknown
    (ws / "state").mkdir()
    memory = ws / "state" / "llvm-auto.json"
    memory.write_text(json.dumps({"answers": {}, "chosen": {pin: "source"}}))
    source = checks_of(cli(*args).stdout)["resources.disk"]["summary"]
    assert "a TritonRelBuildWithAsserts Triton + Release LLVM build needs about 29 GiB" in source
    assert f"--llvm auto: a source build for LLVM {pin[:12]} (kept from an earlier setup" in source
    memory.write_text(json.dumps({"answers": {}, "chosen": {pin: "prebuilt"}}))
    prebuilt = checks_of(cli(*args).stdout)["resources.disk"]["summary"]
    assert "a TritonRelBuildWithAsserts Triton build needs about 17 GiB (--llvm auto: the prebuilt package" in prebuilt
    # --llvm source always counts the LLVM build, whatever auto would do.
    assert "29 GiB" in checks_of(cli(*args, env={"TRITONDEV_LLVM": "source"}).stdout)["resources.disk"]["summary"]
