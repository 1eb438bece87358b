"""ensure_checkout: least transfer, reuse, and never losing local work (real git, real repositories)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError, DirtyCheckout, ExitCode
from bootstrap.core.process.runner import Runner
from bootstrap.core.settings.settings import load_settings
from bootstrap.git.checkouts import ensure_checkout, repository_url
from bootstrap.git.local_changes import parse_porcelain_z
from bootstrap.git.moves import PARTIAL_MARK
from tests.integration.pins.gitrepo import commit_files, git, make_upstream
from tests.support.snapshot import diff, snapshot


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, list[str], str]:
    return make_upstream(tmp_path / "up")


def git_calls(runner: Runner, verb: str) -> list[tuple[str, ...]]:
    return [c.argv for c in runner.history if c.argv[0] == "git" and verb in c.argv]


def test_new_checkout_fetches_one_commit(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "ws" / "src" / "triton"
    report = ensure_checkout("triton", str(bare), shas[2], dest, Runner())
    assert (report.action, report.head, report.dirty_files, report.local_commits) == ("cloned", shas[2], (), ())
    assert git(dest, "rev-parse", "HEAD") == shas[2]
    assert git(dest, "rev-parse", "--is-shallow-repository") == "true"
    assert git(dest, "rev-list", "--count", "HEAD") == "1"
    assert (dest / "setup.py").read_text() == "print('v2')\n"
    assert not dest.with_name("triton.partial").exists()


def test_triton_history_is_a_blobless_clone_on_a_named_branch(
    tmp_path: Path, upstream: tuple[Path, list[str], str]
) -> None:
    """Every commit and tree (log, bisect, rebase work), only the pin's file contents, the branch
    tritondev/<pin8>, origin the repository it came from; a new pin arrives through origin, its branch
    made beside the old one."""
    bare, shas, release = upstream
    dest = tmp_path / "triton"
    report = ensure_checkout("triton", str(bare), shas[2], dest, Runner(), history="blobless")
    assert report.action == "cloned" and git(dest, "rev-parse", "HEAD") == shas[2]
    assert git(dest, "symbolic-ref", "--short", "HEAD") == f"tritondev/{shas[2][:8]}"
    assert git(dest, "rev-parse", "--is-shallow-repository") == "false"
    assert git(dest, "rev-list", "--count", "origin/main") == str(len(shas))
    assert git(dest, "rev-parse", "origin/release/1.x") == release
    assert git(dest, "config", "remote.origin.promisor") == "true"
    assert git(dest, "remote", "get-url", "origin") == str(bare)
    missing = [
        line
        for line in git(dest, "rev-list", "--objects", "--missing=print", "--all").splitlines()
        if line.startswith("?")
    ]
    assert missing, "a blobless clone has blobs of other commits missing until they are needed"
    assert git(dest, "show", f"{shas[0]}:setup.py") == "print('v0')"  # fetched from origin when asked
    assert git(dest, "status", "--porcelain") == ""
    moved = ensure_checkout("triton", str(bare), shas[3], dest, Runner(), history="blobless")
    assert moved.action == "fetched" and git(dest, "symbolic-ref", "--short", "HEAD") == f"tritondev/{shas[3][:8]}"
    assert git(dest, "rev-parse", f"tritondev/{shas[2][:8]}") == shas[2]  # the old pin's branch stays
    assert (dest / "setup.py").read_text() == "print('v3')\n"
    back = ensure_checkout("triton", str(bare), shas[2], dest, Runner(), history="blobless")
    assert back.action == "fetched" and git(dest, "symbolic-ref", "--short", "HEAD") == f"tritondev/{shas[2][:8]}"


def test_rerun_is_up_to_date_and_fetches_nothing(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    ensure_checkout("triton", str(bare), shas[2], dest, Runner())
    (dest / "build").mkdir()
    (dest / "build" / "libtriton.so").write_text("ignored build output")  # ignored files are not local work
    runner = Runner()
    report = ensure_checkout("triton", str(bare), shas[2], dest, runner)
    assert report.action == "up-to-date"
    assert git_calls(runner, "fetch") == [] and git_calls(runner, "checkout") == []


def test_moves_to_a_new_pin_even_from_a_release_branch(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, release = upstream
    dest = tmp_path / "triton"
    ensure_checkout("triton", str(bare), release, dest, Runner())
    # The old pin is on a branch we never fetched; it must not count as a local commit.
    report = ensure_checkout("triton", str(bare), shas[3], dest, Runner())
    assert (report.action, report.head) == ("fetched", shas[3])
    assert git(dest, "rev-parse", "HEAD") == shas[3]
    report = ensure_checkout("triton", str(bare), release, dest, Runner())  # and back: objects are there
    assert report.action == "fetched" and git(dest, "rev-parse", "HEAD") == release


def test_full_clone_of_the_user_stays_full(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    git(tmp_path, "clone", "-q", str(bare), str(dest))
    report = ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    assert report.action == "fetched"
    assert git(dest, "rev-parse", "--is-shallow-repository") == "false"
    assert git(dest, "rev-list", "--count", "origin/main") == str(len(shas))


def test_full_history_option(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    ensure_checkout("triton", str(bare), shas[3], dest, Runner(), full_history=True)
    assert git(dest, "rev-parse", "--is-shallow-repository") == "false"
    assert git(dest, "rev-list", "--count", "HEAD") == str(len(shas))
    # A shallow checkout is deepened in place when full history is asked for later.
    shallow = tmp_path / "shallow"
    ensure_checkout("triton", str(bare), shas[3], shallow, Runner())
    ensure_checkout("triton", str(bare), shas[3], shallow, Runner(), full_history=True)
    assert git(shallow, "rev-list", "--count", "HEAD") == str(len(shas))


def test_dry_run_changes_nothing(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    runner = Runner(dry_run=True)
    report = ensure_checkout("triton", str(bare), shas[2], dest, runner)
    assert report.action == "cloned" and not dest.exists() and not dest.with_name("triton.partial").exists()
    assert git_calls(runner, "fetch"), "the plan shows the fetch"
    ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    before = snapshot(dest)
    report = ensure_checkout("triton", str(bare), shas[3], dest, Runner(dry_run=True))
    assert report.action == "fetched" and report.head == shas[1]
    assert diff(before, snapshot(dest)) == []


def _dirty(kind: str, dest: Path) -> str:
    if kind == "modified":
        (dest / "setup.py").write_text("print('my change')\n")
        return "setup.py"
    if kind == "staged":
        (dest / "lib" / "new.cc").write_text("int mine;\n")
        git(dest, "add", "lib/new.cc")
        return "lib/new.cc"
    if kind == "untracked":
        (dest / "notes.txt").write_text("my notes\n")
        return "notes.txt"
    assert kind == "local-commit"
    return commit_files(dest, {"lib/mine.cc": "int mine;\n"}, "my work")[:12]


@pytest.mark.parametrize("kind", ["modified", "staged", "untracked", "local-commit"])
def test_dirty_checkout_is_never_touched(tmp_path: Path, upstream: tuple[Path, list[str], str], kind: str) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    named = _dirty(kind, dest)
    before = snapshot(dest)  # every file of the tree and of .git, byte for byte
    for pin in (shas[3], shas[1]):  # a new pin, and the same pin
        with pytest.raises(DirtyCheckout) as info:
            ensure_checkout("triton", str(bare), pin, dest, Runner())
        assert info.value.exit_code == int(ExitCode.LOCKED_OR_DIRTY) == 6
        assert named in info.value.message
        assert "--allow-dirty" in (info.value.fix or "")
        assert diff(before, snapshot(dest)) == []
    report = ensure_checkout("triton", str(bare), shas[3], dest, Runner(), allow_dirty=True)
    assert report.action == "dirty-kept" and report.head != shas[3]
    assert any(named in item for item in (*report.dirty_files, *report.local_commits))
    assert not report.matches_pin
    assert named in report.summary() and "differs from the pin" in report.summary()
    assert report.to_json()["action"] == "dirty-kept"
    assert diff(before, snapshot(dest)) == []


def test_something_else_in_the_way_is_left_alone(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    dest.mkdir()
    (dest / "precious.txt").write_text("not a checkout")
    before = snapshot(dest)
    with pytest.raises(DirtyCheckout, match="not a git checkout"):
        ensure_checkout("triton", str(bare), shas[1], dest, Runner())
    assert diff(before, snapshot(dest)) == []
    # An empty folder is fine to clone into.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ensure_checkout("triton", str(bare), shas[1], empty, Runner()).action == "cloned"


def test_interrupted_clone_is_redone(tmp_path: Path, upstream: tuple[Path, list[str], str]) -> None:
    bare, shas, _ = upstream
    dest = tmp_path / "triton"
    partial = tmp_path / "triton.partial"
    partial.mkdir()  # as an interrupted clone leaves it: marked as ours before git wrote into it
    (partial / PARTIAL_MARK).write_text("x")
    (partial / "half-written").write_text("x")
    report = ensure_checkout("triton", str(bare), shas[0], dest, Runner())
    assert report.action == "cloned" and not partial.exists()
    assert not (dest / PARTIAL_MARK).exists()


@pytest.mark.parametrize(
    ("url", "commit"),
    [
        ("ext::sh -c touch% /tmp/pwned", "a" * 40),
        ("--upload-pack=touch /tmp/pwned", "a" * 40),
        ("/some/repo", "a" * 39),
        ("/some/repo", "--upload-pack=x"),
    ],
)
def test_bad_inputs_rejected_before_any_git_call(tmp_path: Path, url: str, commit: str) -> None:
    runner = Runner()
    with pytest.raises(ConfigError):
        ensure_checkout("triton", url, commit, tmp_path / "t", runner)
    assert runner.history == []
    assert not (tmp_path / "t").exists()


def test_porcelain_parsing() -> None:
    out = " M setup.py\0R  new name.py\0old name.py\0?? notes.txt\0"
    assert parse_porcelain_z(out) == ("setup.py", "new name.py", "old name.py", "notes.txt")


def test_repository_url_precedence(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "triton.git").mkdir(parents=True)
    env = {"TRITONDEV_WORKSPACE": str(tmp_path / "ws")}
    plain = load_settings({}, env)
    assert repository_url(plain, "triton", "x") == "https://github.com/triton-lang/triton.git"
    assert repository_url(plain, "llvm-project", "https://github.com/llvm/llvm-project.git").endswith(
        "llvm-project.git"
    )
    mirrored = load_settings({"mirror": str(mirror)}, env)
    assert repository_url(mirrored, "triton", "x") == str(mirror / "triton.git")
    with pytest.raises(ConfigError, match=r"no llvm-project\.git"):
        repository_url(mirrored, "llvm-project", "x")
    explicit = load_settings({"mirror": str(mirror), "triton_url": "git://127.0.0.1/t.git"}, env)
    assert repository_url(explicit, "triton", "x") == "git://127.0.0.1/t.git"
