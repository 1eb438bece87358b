"""A Triton build folder configured again with other inputs: what the rebuilt library really is.

Upstream's CMake keeps what an earlier configure of a build folder found (the LLVM_DIR that
MLIRConfig.cmake's find_package cached, from 3.7 the cache options setup.py passes only when set:
TRITON_OFFLINE_BUILD, the tool paths; the sanitizer and linker flags, the ccache launcher), so each
test switches one input in one workspace and asks the installed library in a fresh process what it
is: the LLVM revision it was compiled against, the LLVM build whose libraries it links (the test
world's libtriton reports both), whether it imports without the sanitizer's runtime, which linker
wrote it, where its ptxas comes from. Real git, cmake, ninja, clang, lld, ccache and pip.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.build.harness import base_env, setup_json
from tests.support.environ import child_environ
from tests.support.run_shared import warm_ccache
from tests.support.venvs import workspace_venv
from tests.world.world import World

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

# What the installed Triton says about itself, asked by a new shell: no variable tritondev or a
# build sets (an ASAN build only imports with its runtime preloaded; a plain one must not need it).
FRESH_IMPORT = """\
import json, triton
print(json.dumps({"file": triton.__file__, "llvm_commit": triton.llvm_commit(), "linked": triton.llvm_linked()}))
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ccache and one LLVM registry for the module: each workspace's LLVM builds come from it."""
    return tmp_path_factory.mktemp("rebuilds-shared")


def workspace_env(shared: Path, root: Path) -> dict[str, str]:
    return base_env(root / "home", xdg=shared / "xdg", ccache_dir=warm_ccache())


def fresh_import(python: Path, cwd: Path) -> dict[str, Any]:
    env = child_environ("LLVM_", "JSON_", "LD_PRELOAD", "ASAN_")
    proc = subprocess.run([str(python), "-c", FRESH_IMPORT], env=env, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"`import triton` in a fresh shell failed:\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def llvm_build_of(report: dict[str, Any]) -> Path:
    """The LLVM build the setup named (its report's `llvm.build`), resolved as libtriton reports it."""
    return Path(report["llvm"]["build"]).resolve()


def test_setup_after_an_llvm_bump_builds_against_the_bumped_llvm(world: World, shared: Path, tmp_path: Path) -> None:
    """Triton main, then a commit pinning another LLVM, in one workspace: the library is the new LLVM's.

    With a ccache of its own and no base folder given (the run's warm ccache has one): the new LLVM's
    build folder is named in every compile command and in the preprocessed text of the files that
    include a header generated there; the files the bump left as they were are still ccache hits,
    because setup gives LLVM's build the workspace as ccache's base folder."""
    env = base_env(tmp_path / "home", xdg=shared / "xdg", ccache_dir=tmp_path / "ccache")
    assert "CCACHE_BASEDIR" not in env
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    first = setup_json(world, ws, "main", "--llvm", "source", env=env)
    python = ws / "venv" / "bin" / "python"
    before = fresh_import(python, tmp_path)
    assert before["llvm_commit"] == world.llvm_commits["pinned"]
    assert Path(before["linked"]["build_tree"]).resolve() == llvm_build_of(first)

    bumped = setup_json(world, ws, "other-llvm", "--llvm", "source", env=env)
    after = fresh_import(python, tmp_path)
    assert llvm_build_of(bumped) != llvm_build_of(first)
    assert after["llvm_commit"] == world.llvm_commits["other"], after
    assert after["linked"]["revision"] == world.llvm_commits["other"], after
    assert Path(after["linked"]["build_tree"]).resolve() == llvm_build_of(bumped), after
    install = next(s for s in bumped["steps"] if s["step"] == "triton-install")
    assert install["reason"].startswith("LLVM changed: fresh CMake cache"), install
    cold, warm = first["ccache"]["LLVM build"], bumped["ccache"]["LLVM build"]
    assert cold["hits"] == 0 and cold["misses"] == 34, cold  # the private ccache started empty
    # What must miss: the bump's changed sources and the files that include its changed header or the
    # revision header: 6 of 34. Without the base folder 10 missed, the other 4 being files that include
    # a header generated in the build folder, whose path the preprocessed text carries.
    assert warm["misses"] <= 6 and warm["hits"] + warm["misses"] == cold["misses"], warm


def comment_section(library: Path) -> str:
    """The .comment section of an ELF file: which compilers and linker wrote it."""
    proc = subprocess.run(["readelf", "-p", ".comment", str(library)], capture_output=True, text=True, check=True)
    return proc.stdout


def libtriton(ws: Path) -> Path:
    return ws / "src" / "triton" / "python" / "triton" / "_C" / "libtriton.so"


def install_reason(report: dict[str, Any]) -> str:
    return str(next(s for s in report["steps"] if s["step"] == "triton-install")["reason"])


def test_offline_then_online_brings_the_pinned_tools_back(world: World, shared: Path, tmp_path: Path) -> None:
    """From 3.7 TRITON_OFFLINE_BUILD is a cache option setup.py passes only when set: online again, the
    folder must not stay offline, and the pinned ptxas (not this machine's) must be back."""
    from tests.integration.build.harness import SYSTEM_PTXAS, system_cuda_and_json
    from tests.integration.build.test_eras import fresh_shell_ptxas

    env = {**workspace_env(shared, tmp_path), **system_cuda_and_json(tmp_path)}
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    python = ws / "venv" / "bin" / "python"
    bundled = ws / "src/triton/python/triton/backends/nvidia/bin/ptxas"
    setup_json(world, ws, "root-json-3.8", "--llvm", "source", "--offline", env=env)
    assert fresh_shell_ptxas(python, tmp_path) == f"{bundled} {SYSTEM_PTXAS[:4]}"
    # The workspace remembers --offline (state/settings.json): going online again is said explicitly.
    online = setup_json(world, ws, "root-json-3.8", "--llvm", "source", env={**env, "TRITONDEV_OFFLINE": "0"})
    assert install_reason(online).startswith("offline build, tool paths changed: fresh CMake cache"), online["steps"]
    assert fresh_shell_ptxas(python, tmp_path) == f"{bundled} 12.8"


def test_sanitize_address_then_none_imports_in_a_fresh_shell(world: World, shared: Path, tmp_path: Path) -> None:
    """setup.py adds -fsanitize=address only when TRITON_BUILD_WITH_ASAN is set: without the rule the
    flags stay, and the plain build then needs the ASAN runtime preloaded to import."""
    env = workspace_env(shared, tmp_path)
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    setup_json(world, ws, "main", "--llvm", "source", "--no-lld", "--sanitize", "address", env=env)
    assert "libasan" in subprocess.run(["ldd", str(libtriton(ws))], capture_output=True, text=True).stdout
    plain = setup_json(world, ws, "main", "--llvm", "source", "--no-lld", "--sanitize", "none", env=env)
    assert install_reason(plain).startswith("sanitizer changed: fresh CMake cache"), plain["steps"]
    assert "libasan" not in subprocess.run(["ldd", str(libtriton(ws))], capture_output=True, text=True).stdout
    assert fresh_import(ws / "venv" / "bin" / "python", tmp_path)["llvm_commit"] == world.llvm_commits["pinned"]


def test_no_lld_then_lld_then_no_lld_each_link_as_asked(world: World, shared: Path, tmp_path: Path) -> None:
    """With lld, setup.py passes clang and -fuse-ld=lld; without, nothing: the cache must not keep them."""
    env = workspace_env(shared, tmp_path)
    ws = tmp_path / "ws"
    workspace_venv(ws)  # made ahead: making it is the setup tests' subject
    for lld, linker_seen in ((False, False), (True, True), (False, False)):
        report = setup_json(world, ws, "main", "--llvm", "source", "--lld" if lld else "--no-lld", env=env)
        comment = comment_section(libtriton(ws))
        assert bool(re.search(r"Linker: .*\bLLD\b", comment)) is linker_seen, (lld, comment, report["steps"])
        assert ("clang version" in comment) is lld, comment
        assert fresh_import(ws / "venv" / "bin" / "python", tmp_path)["llvm_commit"] == world.llvm_commits["pinned"]
