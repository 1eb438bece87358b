"""`resolve_pins` and `tritondev pins` over the test world: every layout era, every transport.

The world's PyTorch, Triton and llvm-project are real git repositories (tests/world). They are read
through file paths, through a real `git daemon` on 127.0.0.1, and through a local HTTP server that
answers like raw.githubusercontent.com.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bootstrap.core.context import AppContext, make_context
from bootstrap.core.errors import ConfigError, MismatchError
from bootstrap.core.process.runner import Runner
from bootstrap.git.checkouts import ensure_checkout
from bootstrap.git.pins import resolve_pins
from tests.world.servers import GitDaemon, RawServer
from tests.world.world import World

ERA_SETUP_DIR = {"python-dir": "python", "root-setup": ".", "root-hash": ".", "root-json": "."}
ERA_PIN_FILE = {
    "python-dir": "cmake/llvm-hash.txt",
    "root-setup": "cmake/llvm-hash.txt",
    "root-hash": "cmake/llvm-hash.txt",
    "root-json": "cmake/llvm-info.json",
}


def context(tmp_path: Path, **options: object) -> AppContext:
    ctx = make_context({"workspace": str(tmp_path / "ws"), **options}, logs=False)
    return ctx.with_runner(ctx.runner.quiet())


def git_argvs(ctx: AppContext) -> list[tuple[str, ...]]:
    return [c.argv for c in ctx.runner.history if c.argv[0] == "git"]


@pytest.fixture
def paths(world: World, clean_env: dict[str, str]) -> dict[str, str]:
    return {"pytorch_url": str(world.bare["pytorch"]), "triton_url": str(world.bare["triton"])}


def test_every_tag_every_era_through_file_paths(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    eras = set()
    for tag, pinned in world.pytorch_tags.items():
        pins = resolve_pins(context(tmp_path, torch_ref=tag, **paths))
        era = world.triton_eras[pinned.triton]
        eras.add(era)
        assert pins.torch_ref == tag and pins.torch_commit == pinned.commit
        assert pins.triton_commit == pinned.triton, tag
        assert pins.llvm_commit == world.triton_llvm_pins[pinned.triton], tag
        assert pins.layout.setup_py_dir == ERA_SETUP_DIR[era], tag
        assert pins.layout.llvm_pin_file == ERA_PIN_FILE[era], tag
        assert pins.layout.binding == ("nanobind" if era == "root-json" else "pybind11"), tag
        assert pins.layout.version == world.triton_versions[pinned.triton]
        expected_version = world.pytorch_triton_versions[tag] or world.triton_versions[pinned.triton]
        assert pins.triton_version == expected_version, tag
        assert "cli:--torch-ref" not in pins.torch_ref_source and "--torch-ref" in pins.torch_ref_source
    assert eras == {"python-dir", "root-setup", "root-hash", "root-json"}  # root-setup: v2.8.0 (3.4), v2.9.0 (3.5)
    assert not (tmp_path / "ws").exists(), "reading pins creates no workspace"


@pytest.mark.parametrize(("tag", "version"), [("v2.0.0", "2.0.0"), ("v2.3.1", "2.3.1")])
def test_pytorch_2_0_to_2_3_pin_a_triton_2_that_is_refused(
    world: World, paths: dict[str, str], tmp_path: Path, tag: str, version: str
) -> None:
    """v2.0.0's pin is only .github/ci_commit_pins/triton.txt (read as the fallback); both pin a Triton 2.x
    (2.3 already with cmake/llvm-hash.txt), which tritondev refuses, naming the oldest PyTorch it builds."""
    with pytest.raises(MismatchError) as caught:
        resolve_pins(context(tmp_path, torch_ref=tag, **paths))
    assert caught.value.message.startswith(f"Triton {version} (the Triton PyTorch 2.0 to 2.3 pin) predates")
    assert "--torch-ref v2.4.0" in (caught.value.fix or "")
    assert not (tmp_path / "ws").exists()


def test_main_is_the_default(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    pins = resolve_pins(context(tmp_path, **paths))
    assert (pins.torch_ref, pins.triton_commit) == ("main", world.pytorch_main.triton)
    assert "default" in pins.torch_ref_source


def test_triton_commit_skips_pytorch(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    sha = world.triton_commits["release-3.3"]
    ctx = context(tmp_path, triton_commit=sha.upper(), **paths)
    pins = resolve_pins(ctx)
    assert (pins.triton_commit, pins.torch_ref, pins.layout.setup_py_dir) == (sha, None, "python")
    assert pins.triton_commit_source == "option --triton-commit"
    assert not any(str(world.bare["pytorch"]) in " ".join(argv) for argv in git_argvs(ctx))


def test_backend_amd_follows_the_pytorch_version(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    """From PyTorch 2.5 ROCm uses the unified triton.txt (a stale triton-rocm.txt is ignored and named);
    before, triton-rocm.txt names a commit of the ROCm fork."""
    for tag in ("v2.12.1", "v2.5.0"):
        pins = resolve_pins(context(tmp_path, torch_ref=tag, backend="amd", **paths))
        assert ".ci/docker/ci_commit_pins/triton.txt" in pins.triton_commit_source, tag
        assert pins.triton_commit == world.pytorch_tags[tag].triton
    assert any("triton-rocm.txt ignored" in note for note in pins.notes)
    rocm = {**paths, "triton_url": str(world.bare["rocm-triton"])}
    pins = resolve_pins(context(tmp_path, torch_ref="v2.4.1", backend="amd", **rocm))
    assert "triton-rocm.txt" in pins.triton_commit_source and pins.triton_commit == world.rocm_triton_commit
    assert pins.triton_url == str(world.bare["rocm-triton"]) and pins.layout.setup_py_dir == "python"
    assert any("ROCm fork" in note for note in pins.notes)
    # nvidia at the same ref: triton-lang's commit from triton.txt.
    assert (
        resolve_pins(context(tmp_path, torch_ref="v2.4.1", **paths)).triton_commit
        == world.triton_commits["release-3.0"]
    )


def test_rocm_fork_is_the_default_triton_url_before_2_5(
    world: World, clean_env: dict[str, str], tmp_path: Path
) -> None:
    """No --triton-url and no mirror: the ROCm fork's URL (whose files the world cannot serve, so the
    choice is asked of the function that makes it, after the real pin read)."""
    from bootstrap.git.pins import PinInputs, _pytorch_pin, _triton_location

    for tag, url in (
        ("v2.4.1", "https://github.com/ROCm/triton.git"),
        ("v2.5.0", "https://github.com/triton-lang/triton.git"),
    ):
        ctx = context(tmp_path, torch_ref=tag, backend="amd", pytorch_url=str(world.bare["pytorch"]))
        where = PinInputs(ctx.settings, ctx.workspace, ctx.runner, ctx.target())
        assert _triton_location(ctx.settings, _pytorch_pin(where, [], False), []).url == url, tag


def test_the_pin_is_llvm_info_json_even_when_the_build_info_runs_ahead(
    world: World, paths: dict[str, str], tmp_path: Path
) -> None:
    pins = resolve_pins(context(tmp_path, **paths))  # PyTorch main pins Triton main
    assert pins.llvm_commit == world.llvm_commit and pins.layout.llvm_pin_file == "cmake/llvm-info.json"
    assert pins.llvm_url == "https://github.com/llvm/llvm-project.git"
    note = next(n for n in pins.notes if "llvm-build-info.json" in n)
    assert world.llvm_fork_commit in note and world.llvm_commit in note
    data: dict[str, Any] = pins.to_json()
    assert data["llvm_build_info"] == {"llvm_hash": world.llvm_fork_commit, "repository": "triton-lang/llvm-project"}
    assert data["amd_llvm"]["repository"] == "ROCm/llvm-project"
    # A pin only the fork has (release/3.8.x): the fork its own files name is where it is fetched from.
    fork = resolve_pins(context(tmp_path, triton_commit=world.triton_commits["llvm-fork"], **paths))
    assert fork.llvm_commit == world.llvm_fork_commit
    assert fork.llvm_url == "https://github.com/triton-lang/llvm-project.git"
    assert "llvm-build-info.json" in fork.llvm_url_source and fork.layout.llvm_forks == ("llvm/llvm-project",)


def test_through_git_daemon(world: World, git_daemon: GitDaemon, clean_env: dict[str, str], tmp_path: Path) -> None:
    ctx = context(
        tmp_path, torch_ref="v2.7.1", pytorch_url=git_daemon.url("pytorch"), triton_url=git_daemon.url("triton")
    )
    pins = resolve_pins(ctx)
    assert pins.triton_commit == world.pytorch_tags["v2.7.1"].triton
    assert pins.layout.setup_py_dir == "python"
    fetches = [a for a in git_argvs(ctx) if "fetch" in a]
    assert fetches and all("--depth" in a and "--filter=blob:none" in a for a in fetches)


def test_pytorch_cache_holds_only_what_was_needed(
    world: World, git_daemon: GitDaemon, clean_env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    opts = {"pytorch_url": git_daemon.url("pytorch"), "triton_url": str(world.bare["triton"])}
    for tag in ("v2.5.0", "v2.14.0"):
        resolve_pins(context(tmp_path, torch_ref=tag, **opts))
    cache = tmp_path / "ws" / "src" / "pytorch.git"
    count = subprocess.run(
        ["git", "--git-dir", str(cache), "rev-list", "--all", "--count"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert count == "2", "one commit per ref read, never PyTorch's history"


def test_through_raw_http_server(
    world: World, raw_http_server: RawServer, clean_env: dict[str, str], tmp_path: Path
) -> None:
    base = f"raw+{raw_http_server.base_url}/pytorch/pytorch"
    before = len(raw_http_server.requests)
    ctx = context(tmp_path, torch_ref="release/2.12", pytorch_url=base, triton_url=str(world.bare["triton"]))
    pins = resolve_pins(ctx)
    assert pins.triton_commit == world.pytorch_tags["v2.12.1"].triton
    asked = raw_http_server.requests[before:]
    assert asked == [
        "/pytorch/pytorch/release/2.12/.ci/docker/ci_commit_pins/triton.txt",
        "/pytorch/pytorch/release/2.12/.ci/docker/triton_version.txt",
    ]
    assert not any(str(raw_http_server.base_url) in " ".join(a) for a in git_argvs(ctx))


def test_mirror_dir(world: World, clean_env: dict[str, str], tmp_path: Path) -> None:
    pins = resolve_pins(context(tmp_path, torch_ref="v2.14.0", mirror=str(world.git_root)))
    assert pins.triton_commit == world.pytorch_tags["v2.14.0"].triton
    assert pins.pytorch_url == str(world.git_root / "pytorch.git")
    assert pins.llvm_url == str(world.git_root / "llvm-project.git")


@pytest.mark.parametrize(
    ("tag", "says"),
    [("v9.9.9-badpin", "39 hex digits"), ("v9.9.8-emptypin", "empty"), ("v9.9.7-garbage", "extra text")],
)
def test_malformed_pins_stop_before_git_sees_them(
    world: World, paths: dict[str, str], tmp_path: Path, tag: str, says: str
) -> None:
    ctx = context(tmp_path, torch_ref=tag, **paths)
    with pytest.raises(MismatchError) as info:
        resolve_pins(ctx)
    assert says in info.value.message and tag in info.value.message
    content = world.pytorch_bad_tags[tag].strip()
    assert not any(content and content.split()[0] in " ".join(a) for a in git_argvs(ctx))
    assert not any(str(world.bare["triton"]) in " ".join(a) for a in git_argvs(ctx))


def test_pin_missing_from_triton(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(MismatchError, match="is not in"):
        resolve_pins(context(tmp_path, torch_ref="v9.9.4-unknownpin", **paths))


@pytest.mark.parametrize(
    "options",
    [
        {"torch_ref": "--upload-pack=touch /tmp/pwned"},
        {"torch_ref": "v2.5.0", "pytorch_url": "ext::sh -c touch% /tmp/pwned"},
        {"torch_ref": "v2.5.0", "triton_url": "ext::sh%20-c%20id"},
        {"triton_commit": "a" * 39},
    ],
)
def test_bad_inputs_rejected_before_any_git_call(
    clean_env: dict[str, str], tmp_path: Path, options: dict[str, str]
) -> None:
    ctx = context(tmp_path, **options)
    with pytest.raises(ConfigError):
        resolve_pins(ctx)
    assert git_argvs(ctx) == []


def test_layout_is_read_from_the_workspace_checkout(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    sha = world.pytorch_tags["v2.14.0"].triton
    ensure_checkout("triton", paths["triton_url"], sha, tmp_path / "ws" / "src" / "triton", Runner(silent=True))
    ctx = context(
        tmp_path, torch_ref="v2.14.0", pytorch_url=paths["pytorch_url"], triton_url="git://127.0.0.1:9/none.git"
    )
    pins = resolve_pins(ctx)  # the Triton URL is unreachable: the checkout answers
    assert pins.triton_commit == sha and str(tmp_path / "ws" / "src" / "triton") in pins.llvm_commit_source


def _venv_with_torch_version_py(root: Path, text: str) -> Path:
    # A real venv (no pip: seconds). The resolver reads only torch/version.py, never imports torch,
    # so a venv holding that one file is exactly the input it sees from a real torch wheel.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python*/site-packages"))
    (site / "torch").mkdir()
    (site / "torch" / "version.py").write_text(text)
    return root


def test_installed_torch_chooses_the_ref(world: World, paths: dict[str, str], tmp_path: Path) -> None:
    venv = _venv_with_torch_version_py(tmp_path / "venv", world.torch_version_py("v2.12.1"))
    pins = resolve_pins(context(tmp_path, python=str(venv), **paths))
    assert pins.torch_ref == "v2.12.1" and pins.torch_version == "2.12.1"
    assert pins.triton_commit == world.pytorch_tags["v2.12.1"].triton
    assert "release tag" in pins.torch_ref_source
    (next(venv.glob("lib/python*/site-packages")) / "torch" / "version.py").write_text(world.torch_version_py("main"))
    pins = resolve_pins(context(tmp_path, python=str(venv), **paths))
    assert pins.torch_ref == world.pytorch_main.commit  # a source build: its exact commit
    assert pins.triton_commit == world.pytorch_main.triton


def test_torch_commit_as_ref_over_git_daemon(
    world: World, git_daemon: GitDaemon, clean_env: dict[str, str], tmp_path: Path
) -> None:
    commit = world.pytorch_tags["v2.12.1"].commit
    ctx = context(
        tmp_path, torch_ref=commit, pytorch_url=git_daemon.url("pytorch"), triton_url=git_daemon.url("triton")
    )
    pins = resolve_pins(ctx)
    assert (pins.torch_commit, pins.triton_commit) == (commit, world.pytorch_tags["v2.12.1"].triton)
    assert pins.layout.llvm_pin_file == "cmake/llvm-hash.txt" and pins.layout.has_build_llvm_script
