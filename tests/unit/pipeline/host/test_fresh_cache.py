"""The fresh-cache rule: a configure input that differs from what a build folder's CMakeCache.txt holds
starts the folder fresh; the reading of a cache; the removal, which touches exactly two names."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.pipeline.host.fresh_cache import (
    CacheView,
    Input,
    decide,
    fresh_argument,
    llvm_expectations,
    read_cache,
    start_fresh,
)
from bootstrap.pipeline.host.triton_configure import (
    TritonConfigure,
    setup_py_build_type,
    triton_configure_of,
    triton_expectations,
)

OLD, NEW = Path("/ws/build/llvm/old"), Path("/ws/build/llvm/new")
SOURCE = Path("/ws/src/triton")


def configure(**changes: object) -> TritonConfigure:
    base = TritonConfigure(
        source=SOURCE,
        llvm=NEW,
        build_type="RelWithDebInfo",
        backends="nvidia;amd",
        cxx="/usr/bin/clang++-14",
        ccache="/usr/bin/ccache",
        clang_lld=True,
        sanitize=False,
        offline=False,
        tools={},
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def cache_of(c: TritonConfigure, **entries: str) -> CacheView:
    """What a configure with `c` leaves in the cache (the entries this rule reads), plus `entries`."""
    values = {
        "CMAKE_HOME_DIRECTORY": str(c.source),
        "LLVM_DIR": f"{c.llvm}/lib/cmake/llvm",
        "LLVM_SYSPATH": str(c.llvm),
        "TRITON_GSAN_CLANGXX": f"{c.llvm}/bin/clang++",
        "CMAKE_BUILD_TYPE": c.build_type,
        "TRITON_CODEGEN_BACKENDS": c.backends,
        "CMAKE_CXX_COMPILER": c.cxx,
        "CMAKE_CXX_COMPILER_LAUNCHER": c.ccache or "",
        "CMAKE_C_COMPILER_LAUNCHER": c.ccache or "",
        "CMAKE_CXX_FLAGS": "-fsanitize=address" if c.sanitize else "",
        "CMAKE_C_FLAGS": "",
        "CMAKE_SHARED_LINKER_FLAGS": "-fuse-ld=lld" if c.clang_lld else "",
        "TRITON_OFFLINE_BUILD": "ON" if c.offline else "OFF",
        **dict(c.tools),
    }
    if c.sanitize:
        values["CMAKE_C_FLAGS"] = "-fsanitize=address"
    if c.clang_lld:
        values.update(CMAKE_MODULE_LINKER_FLAGS="-fuse-ld=lld", CMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld")
    if c.offline:
        values["TRITON_BUILD_UT"] = "OFF"
    return CacheView(Path("/ws/src/triton/build/cmake.linux-x86_64-cpython-3.11"), {**values, **entries})


def test_a_cache_that_agrees_is_reused_and_a_folder_without_one_is_no_decision() -> None:
    c = configure()
    assert not decide(triton_expectations(c), cache_of(c)).fresh
    assert not decide(triton_expectations(c), None).fresh


@pytest.mark.parametrize(("before", "after", "inputs"), [
    (configure(llvm=OLD), configure(), (Input.LLVM,)),
    (configure(offline=True, tools={"TRITON_PTXAS_PATH": "/usr/local/cuda/bin/ptxas"}), configure(),
     (Input.OFFLINE, Input.TOOLS)),
    (configure(), configure(offline=True, tools={"JSON_SYSPATH": "/usr"}), (Input.OFFLINE,)),
    (configure(sanitize=True), configure(), (Input.SANITIZER,)),
    (configure(), configure(sanitize=True), (Input.SANITIZER,)),
    (configure(), configure(clang_lld=False, cxx="/usr/bin/g++-12"), (Input.LINKER, Input.COMPILER)),
    (configure(ccache="/usr/bin/ccache"), configure(ccache=None), (Input.LAUNCHER,)),
    (configure(build_type="Debug"), configure(), (Input.BUILD_TYPE,)),
    (configure(backends="nvidia"), configure(), (Input.BACKENDS,)),
    (configure(source=Path("/elsewhere/triton")), configure(), (Input.SOURCE,)),
])  # fmt: skip
def test_each_changed_input_starts_fresh_and_says_which(
    before: TritonConfigure, after: TritonConfigure, inputs: tuple[Input, ...]
) -> None:
    decision = decide(triton_expectations(after), cache_of(before))
    assert decision.fresh and decision.inputs == inputs
    assert decision.reason == f"{', '.join(i.value for i in inputs)} changed: fresh CMake cache"


def test_tool_paths_count_only_where_they_are_cache_options() -> None:
    """Before 3.7 setup.py reads them itself (and 3.4-3.6 pass -DJSON_SYSPATH of their own download)."""
    offline = configure(offline=True, tools={"JSON_SYSPATH": "/usr", "TRITON_PTXAS_PATH": "/cuda/bin/ptxas"})
    old_era = dataclasses.replace(offline, tools_cached=False)
    cached_json = cache_of(configure(), JSON_SYSPATH="/ws/triton-home/.triton/json")
    assert decide(triton_expectations(dataclasses.replace(configure(), tools_cached=False)), cached_json).inputs == ()
    assert decide(triton_expectations(configure()), cached_json).inputs == (Input.TOOLS,)
    # An offline configure whose era does not cache TRITON_PTXAS_PATH agrees with a cache without it.
    view = cache_of(offline)
    without = CacheView(view.folder, {k: v for k, v in view.values.items() if k != "TRITON_PTXAS_PATH"})
    assert not decide(triton_expectations(offline), without).fresh
    assert not decide(triton_expectations(old_era), without).fresh


def test_the_llvm_reason_names_both_trees() -> None:
    decision = decide(triton_expectations(configure()), cache_of(configure(llvm=OLD)))
    assert decision.reason == "LLVM changed: fresh CMake cache"
    assert f"LLVM_DIR: {OLD}/lib/cmake/llvm -> inside {NEW}" in [c.describe() for c in decision.changes]


def test_a_program_found_in_the_tree_is_in_the_tree_through_its_link() -> None:
    """find_program's TRITON_GSAN_CLANGXX resolves bin/clang++ -> bin/clang: still this LLVM's."""
    c = configure()
    assert not decide(triton_expectations(c), cache_of(c, TRITON_GSAN_CLANGXX=f"{NEW}/bin/clang")).fresh
    assert decide(triton_expectations(c), cache_of(c, TRITON_GSAN_CLANGXX=f"{OLD}/bin/clang")).fresh
    assert decide(triton_expectations(c), cache_of(c, LLVM_DIR=f"{NEW}-other/lib/cmake/llvm")).fresh


def test_entries_an_era_does_not_have_are_not_required() -> None:
    """3.0-3.3 have no LLVM_SYSPATH in the cache; MLIR_DIR is cached only when given; no GSan before 3.7."""
    c = configure()
    view = cache_of(c)
    values = {
        k: v for k, v in view.values.items() if k not in ("LLVM_SYSPATH", "TRITON_GSAN_CLANGXX", "TRITON_OFFLINE_BUILD")
    }
    assert not decide(triton_expectations(c), CacheView(view.folder, values)).fresh


def test_what_setup_py_is_given_decides_the_configure() -> None:
    env = {
        "LLVM_SYSPATH": str(NEW),
        "REL_WITH_DEB_INFO": "1",
        "TRITON_BUILD_WITH_CCACHE": "1",
        "TRITON_BUILD_WITH_CLANG_LLD": "1",
        "CXX": "/usr/bin/g++",
        "TRITON_BUILD_WITH_ASAN": "1",
        "TRITON_OFFLINE_BUILD": "1",
        "TRITON_PTXAS_PATH": "/cuda/bin/ptxas",
    }
    c = triton_configure_of(env, SOURCE, "/usr/bin/ccache", "nvidia;amd", str)
    assert (c.llvm, c.build_type, c.cxx, c.ccache, c.clang_lld, c.sanitize, c.offline) == (
        NEW,
        "RelWithDebInfo",
        "clang++",
        "/usr/bin/ccache",
        True,
        True,
        True,
    )
    assert c.tools == {"TRITON_PTXAS_PATH": "/cuda/bin/ptxas"}
    plain = triton_configure_of(
        {"LLVM_SYSPATH": str(NEW), "CXX": "/usr/bin/g++", "TRITON_BUILD_WITH_CCACHE": "0"},
        SOURCE,
        "/usr/bin/ccache",
        "nvidia;amd",
        str,
    )
    assert (plain.cxx, plain.ccache, plain.clang_lld) == ("/usr/bin/g++", None, False)


@pytest.mark.parametrize(("env", "build_type"), [
    ({}, "TritonRelBuildWithAsserts"), ({"DEBUG": "1"}, "Debug"), ({"REL_WITH_DEB_INFO": "ON"}, "RelWithDebInfo"),
    ({"TRITON_BUILD_WITH_O1": "true"}, "TritonBuildWithO1"), ({"DEBUG": "0"}, "TritonRelBuildWithAsserts"),
    ({"DEBUG": "1", "REL_WITH_DEB_INFO": "1"}, "Debug"),
])  # fmt: skip
def test_setup_py_build_type(env: dict[str, str], build_type: str) -> None:
    assert setup_py_build_type(env) == build_type


def test_an_llvm_folder_whose_launcher_or_linker_is_no_longer_passed_starts_fresh() -> None:
    source = Path("/ws/src/llvm-project/llvm")
    args = [
        ("CMAKE_BUILD_TYPE", "Release"),
        ("LLVM_ENABLE_ASSERTIONS", "ON"),
        ("CMAKE_CXX_COMPILER", "/usr/bin/g++"),
        ("LLVM_PARALLEL_LINK_JOBS", "4"),
    ]
    cached = {
        "CMAKE_HOME_DIRECTORY": str(source),
        "CMAKE_BUILD_TYPE": "Release",
        "LLVM_ENABLE_ASSERTIONS": "on",
        "CMAKE_CXX_COMPILER": "/usr/bin/g++",
        "LLVM_PARALLEL_LINK_JOBS": "2",
    }
    view = CacheView(Path("/ws/build/llvm/k"), cached)
    assert not decide(llvm_expectations(source, args, ("LLVM_PARALLEL_LINK_JOBS",)), view).fresh
    stale = CacheView(
        view.folder, {**cached, "CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache", "LLVM_ENABLE_LLD": "ON"}
    )
    decision = decide(llvm_expectations(source, args, ("LLVM_PARALLEL_LINK_JOBS",)), stale)
    assert decision.inputs == (Input.LAUNCHER, Input.LINKER)


def test_cmake_fresh_from_3_24() -> None:
    assert fresh_argument("3.24.0") and fresh_argument("4.1.2") and not fresh_argument("3.23.5")
    assert not fresh_argument("") and not fresh_argument("garbage")


def test_reading_keeps_names_and_resolves_paths(tmp_path: Path) -> None:
    real = tmp_path / "llvm"
    (real / "lib" / "cmake" / "llvm").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    (tmp_path / "CMakeCache.txt").write_text(
        "# comment\n//help text\nLLVM_DIR:PATH=" + f"{link}/lib/cmake/llvm\n" + "CMAKE_BUILD_TYPE:STRING=Release\n"
        "TRITON_CODEGEN_BACKENDS:STRING=nvidia;amd\nEMPTY:PATH=\nno equals sign here\n"
    )
    view = read_cache(tmp_path)
    assert view is not None
    assert view.values["LLVM_DIR"] == str(real / "lib" / "cmake" / "llvm")
    assert view.values["CMAKE_BUILD_TYPE"] == "Release" and view.values["TRITON_CODEGEN_BACKENDS"] == "nvidia;amd"
    assert view.values["EMPTY"] == ""
    assert read_cache(tmp_path / "nowhere") is None


def test_a_cache_that_is_a_fifo_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "CMakeCache.txt")
    assert read_cache(tmp_path) is None  # never blocks on a FIFO


@given(st.text(max_size=400))
def test_any_cache_text_is_read_without_error(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "CMakeCache.txt").write_text(text, encoding="utf-8", errors="surrogateescape")
        view = read_cache(Path(folder))
        assert view is not None
        c = configure()
        decide(triton_expectations(c), view)  # any content: a decision, never an exception


def test_start_fresh_removes_the_cache_file_and_folder_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "build" / "cmake.linux-x86_64-cpython-3.11"
    (folder / "CMakeFiles" / "sub").mkdir(parents=True)
    (folder / "CMakeCache.txt").write_text("X:STRING=1\n")
    (folder / "build.ninja").write_text("rules\n")
    (folder / "lib.o").write_bytes(b"object")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (folder / "CMakeFiles" / "sub" / "link-out").symlink_to(outside)
    removed = start_fresh(folder)
    assert sorted(p.name for p in removed) == ["CMakeCache.txt", "CMakeFiles"]
    assert sorted(p.name for p in folder.iterdir()) == ["build.ninja", "lib.o"]
    assert (outside / "keep.txt").read_text() == "mine"


def test_links_at_the_two_names_are_removed_as_links(tmp_path: Path) -> None:
    folder = tmp_path / "cmake.x"
    folder.mkdir()
    target_dir, target_file = tmp_path / "their-dir", tmp_path / "their-cache.txt"
    target_dir.mkdir()
    (target_dir / "keep").write_text("k")
    target_file.write_text("theirs")
    (folder / "CMakeFiles").symlink_to(target_dir)
    (folder / "CMakeCache.txt").symlink_to(target_file)
    start_fresh(folder)
    assert not (folder / "CMakeFiles").is_symlink() and not (folder / "CMakeCache.txt").is_symlink()
    assert (target_dir / "keep").read_text() == "k" and target_file.read_text() == "theirs"


def test_a_folder_that_is_a_link_is_left_alone(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "CMakeFiles").mkdir(parents=True)
    (real / "CMakeCache.txt").write_text("X=1\n")
    link = tmp_path / "cmake.link"
    link.symlink_to(real)
    assert start_fresh(link) == []
    assert (real / "CMakeCache.txt").exists() and (real / "CMakeFiles").is_dir()


@given(
    st.lists(
        st.sampled_from(
            ["CMakeCache.txt", "CMakeFiles", "build.ninja", "a.o", "CMakeCache.txt.bak", "cmakefiles", "CMakeFiles2"]
        ),
        unique=True,
    )
)
def test_whatever_the_folder_holds_only_the_two_names_go(names: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in names:
            (folder / name).mkdir() if name.startswith("CMakeFiles") else (folder / name).write_text("x")
        start_fresh(folder)
        left = sorted(p.name for p in folder.iterdir())
        assert left == sorted(n for n in names if n not in ("CMakeCache.txt", "CMakeFiles"))


# -- the rule in the setup plan ------------------------------------------------------------------------


def _plan_after_setup(era: str) -> tuple[object, object]:
    from bootstrap.pipeline.setup.plan import plan_setup
    from tests.unit.pipeline.setup.facts_for_tests import finished, fresh, in_place

    facts = in_place(fresh(era))
    return facts, finished(facts, plan_setup(facts))


@pytest.mark.parametrize("era", ["python-dir", "root-json"])
def test_a_triton_folder_built_against_another_llvm_is_reinstalled_from_a_fresh_cache(era: str) -> None:
    from bootstrap.pipeline.setup.facts import SetupFacts
    from bootstrap.pipeline.setup.plan import plan_setup

    _, done = _plan_after_setup(era)
    assert isinstance(done, SetupFacts)
    plan = plan_setup(done)
    install = plan.step("triton-install")
    assert not install.runs and install.fresh is None
    llvm = plan.llvm.build
    env = dict(plan.presets.pip_install.env)
    agreeing = {
        "CMAKE_HOME_DIRECTORY": str(done.triton.path),
        "LLVM_DIR": f"{llvm}/lib/cmake/llvm",
        "CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache",
        "CMAKE_C_COMPILER_LAUNCHER": "/usr/bin/ccache",
        "CMAKE_SHARED_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_MODULE_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_EXE_LINKER_FLAGS": "-fuse-ld=lld",
        "CMAKE_BUILD_TYPE": "TritonRelBuildWithAsserts",
    }
    assert env["LLVM_SYSPATH"] == str(llvm)
    folder = done.setup_dir / "build" / "cmake.linux-x86_64-cpython-3.11"
    same = dataclasses.replace(done, triton_cache=CacheView(folder, agreeing))
    assert not plan_setup(same).step("triton-install").runs
    stale = dataclasses.replace(done, triton_cache=CacheView(folder, {**agreeing, "LLVM_DIR": "/old/lib/cmake/llvm"}))
    install = plan_setup(stale).step("triton-install")
    assert install.runs and install.reason == "LLVM changed: fresh CMake cache"
    assert install.fresh is not None and install.fresh.folder == folder and not install.fresh.by_argument


@pytest.mark.parametrize(("cmake", "by_argument"), [("3.25.1", True), ("3.22.1", False)])
def test_an_llvm_folder_with_a_stale_launcher_is_configured_fresh(cmake: str, by_argument: bool) -> None:
    from bootstrap.pipeline.host.toolchain import Tool
    from bootstrap.pipeline.setup.facts import SetupFacts
    from bootstrap.pipeline.setup.plan import plan_setup

    _, done = _plan_after_setup("root-json")
    assert isinstance(done, SetupFacts)
    tc = dataclasses.replace(done.toolchain, ccache=None, cmake=Tool("cmake", "/usr/bin/cmake", cmake))
    no_ccache = dataclasses.replace(done, toolchain=tc)
    plan = plan_setup(no_ccache)
    folder = plan.llvm.build
    cached = dict(plan.presets.llvm_cache)
    cached["CMAKE_HOME_DIRECTORY"] = str(plan.llvm.source / "llvm")
    launcher = {"CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache"}
    stale = dataclasses.replace(no_ccache, llvm_cache=CacheView(folder, {**cached, **launcher}))
    configure = plan_setup(stale).step("llvm-configure")
    assert configure.runs and configure.reason.startswith("compiler launcher changed: fresh CMake cache")
    assert configure.fresh is not None and configure.fresh.by_argument is by_argument
    assert ("--fresh" in configure.commands[0].argv) is by_argument
    agreeing = dataclasses.replace(no_ccache, llvm_cache=CacheView(folder, cached))
    assert plan_setup(agreeing).step("llvm-configure").fresh is None
