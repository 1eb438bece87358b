"""Workspace checks against real git checkouts and an LLVM build folder laid out as setup leaves it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import Cli
from tests.integration.doctor.conftest import checks_of

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"change {name}")
    return git(repo, "rev-parse", "HEAD")


def llvm_build(ws: Path, key: str, revision: str) -> Path:
    build = ws / "build" / "llvm" / key
    (build / "bin").mkdir(parents=True)
    (build / "bin" / "llvm-config").write_text("")
    header = build / "include" / "llvm" / "Support" / "VCSRevision.h"
    header.parent.mkdir(parents=True)
    header.write_text(f'#define LLVM_REVISION "{revision}"\n#define LLVM_REPOSITORY "x"\n')
    return build


def test_checkouts_llvm_build_and_local_changes(cli: Cli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    llvm = ws / "src" / "llvm-project"
    triton = ws / "src" / "triton"
    for repo in (llvm, triton):
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
    pinned = commit(llvm, "llvm/README.txt", "one\n")
    newer = commit(llvm, "llvm/README.txt", "two\n")
    commit(triton, "cmake/llvm-hash.txt", pinned + "\n")
    commit(triton, "README.md", "Triton\n")
    args = ("doctor", "--workspace", str(ws), "--check", "workspace", "--json")

    checks = checks_of(cli(*args).stdout)
    assert checks["workspace.checkouts"]["status"] == "warn"
    assert f"llvm-project is at {newer[:12]}" in checks["workspace.checkouts"]["summary"]
    assert pinned[:12] in checks["workspace.checkouts"]["summary"]
    assert checks["workspace.dirty"]["status"] == "ok"
    llvm_build(ws, "old", newer)
    checks = checks_of(cli(*args).stdout)
    assert checks["workspace.llvm-build"]["status"] == "warn"
    assert "no LLVM build matches Triton's pin" in checks["workspace.llvm-build"]["summary"]

    git(llvm, "checkout", "-q", pinned)
    at_pin = llvm_build(ws, "pinned", pinned)
    (triton / "README.md").write_text("Triton, edited\n")
    checks = checks_of(cli(*args).stdout)
    assert checks["workspace.checkouts"]["status"] == "ok", checks["workspace.checkouts"]["summary"]
    assert checks["workspace.llvm-build"]["status"] == "ok"
    assert str(at_pin) in checks["workspace.llvm-build"]["summary"]
    assert checks["workspace.dirty"]["status"] == "warn"
    assert "triton has 1 changed file" in checks["workspace.dirty"]["summary"]
    assert "--allow-dirty" in checks["workspace.dirty"]["fix"]

    # A Triton pin from the settings that the checkout is not at
    other = "0123456789abcdef0123456789abcdef01234567"
    checks = checks_of(cli(*args, env={"TRITONDEV_TRITON_COMMIT": other}).stdout)
    assert checks["workspace.checkouts"]["status"] == "warn"
    assert other in checks["workspace.checkouts"]["summary"]


def test_no_checkouts_are_skipped_with_the_fix(cli: Cli, tmp_path: Path) -> None:
    result = cli("doctor", "--workspace", str(tmp_path / "ws"), "--check", "workspace", "--json")
    checks = checks_of(result.stdout)
    assert checks.pop("workspace.location")["status"] == "ok"  # a folder setup may create
    clone = checks.pop("workspace.clone")  # no clone of the user's adopted: nothing setup would fix
    assert clone["status"] == "skipped" and clone["fix"] is None and "--triton-src" in clone["summary"]
    assert {c["status"] for c in checks.values()} == {"skipped"}
    # The fix repeats the workspace the user named (bootstrap.core.fixlines).
    assert all(c["fix"] == f"tritondev setup --workspace {tmp_path / 'ws'}" for c in checks.values())
    assert result.returncode == 0 and not (tmp_path / "ws").exists()


def test_text_report_has_marks_fixes_and_a_summary(cli: Cli, tmp_path: Path) -> None:
    result = cli(
        "doctor",
        "--workspace",
        str(tmp_path / "ws"),
        "--check",
        "settings",
        "--check",
        "workspace",
        env={"TRITON_OVERRIDE_ARCH": "sm90"},
    )
    lines = result.stdout.splitlines()
    assert any(line.strip().startswith("! settings.triton-env") for line in lines)
    assert any(line.strip().startswith("· workspace.checkouts") for line in lines)
    assert any(line.strip() == "fix: unset TRITON_OVERRIDE_ARCH unless you mean it for this shell" for line in lines)
    assert lines[-1].startswith("No errors.") and "2 ok, 1 warning, 0 errors, 6 skipped" in lines[-1]
    assert result.returncode == 0
