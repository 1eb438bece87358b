"""Parsers of outside input for `--llvm prebuilt|PATH`: cmake/llvm-info.json, the HTTP headers of a
(resumed) download, archive member names, LLVMConfig.cmake; and the choices made from them (the
package's suffix and name per Triton era, the --llvm setting). Hypothesis feeds them anything."""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bootstrap.core.errors import ConfigError, MismatchError
from bootstrap.core.settings.settings_table import Settings
from bootstrap.core.settings.values import (
    LlvmAuto,
    LlvmFromSource,
    LlvmPrebuilt,
    LlvmTree,
    parse_llvm_setting,
    parse_llvm_source,
)
from bootstrap.git.setup_py import SetupPyArgs, read_setup_py_args
from bootstrap.pipeline.llvm.archive import FILE, FOLDER, HARDLINK, OTHER, SYMLINK, member_problem
from bootstrap.pipeline.llvm.download import parse_content_length, parse_content_range, unsatisfied_total
from bootstrap.pipeline.llvm.package import package_for, parse_llvm_info
from bootstrap.pipeline.llvm.source import (
    Host,
    TreeReport,
    check_contents,
    host_suffix,
    inspect_tree,
    parse_targets,
)

HASH = "62b7cf9623fc310525f39ed69aaecc318a909731"
BASE = "https://oaitriton.blob.core.windows.net/public/llvm-builds"
# The shape of cmake/llvm-info.json at Triton's 3.8 cut (triton-build-eras.md §8.2).
UPSTREAM_INFO = {
    "llvm_hash": HASH,
    "build_number": 2,
    "sha256sum": {
        s: f"{i:x}" * 64
        for i, s in enumerate(
            (
                "almalinux-arm64",
                "almalinux-x64",
                "macos-arm64",
                "macos-x64",
                "ubuntu-arm64",
                "ubuntu-x64",
                "windows-x64",
            ),
            start=1,
        )
    },
}
# get_llvm_package_info's rules per release, as each setup.py / build_helpers.py has them (read from
# the files: python/setup.py @ 107465b8, dbc771e8; @ 96316ce5 almalinux-arm64; setup.py @ 004d7f5f
# TRITON_LLVM_SYSTEM_SUFFIX, no centos-x64).
_OLD, _ALMA = (
    SetupPyArgs(suffix_env=False, almalinux_arm64=False, centos_x64=True),
    SetupPyArgs(suffix_env=False, centos_x64=True),
)
RULES = {
    "3.1.0": _OLD,
    "3.2.0": _OLD,
    "3.3.0": _ALMA,
    "3.3.1": _ALMA,
    "3.4.0": _ALMA,
    "3.5.0": SetupPyArgs(centos_x64=True),
    "3.6.0": SetupPyArgs(),
    "3.8.0": SetupPyArgs(),
}
UBUNTU = Host("Linux", "x86_64", (2, 36), "ID=debian\n")
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


# -- cmake/llvm-info.json ------------------------------------------------------------------------


def test_the_upstream_file_parses() -> None:
    info = parse_llvm_info(json.dumps(UPSTREAM_INFO, indent=2))
    assert (info.llvm_hash, info.build_number, info.malformed) == (HASH, 2, ())
    assert info.sha256sum["ubuntu-x64"] == "6" * 64 and len(info.sha256sum) == 7


@given(
    st.one_of(JSON, st.fixed_dictionaries({"llvm_hash": JSON | st.just(HASH), "build_number": JSON, "sha256sum": JSON}))
)
def test_any_json_is_parsed_or_refused_with_exit_5(data: object) -> None:
    try:
        info = parse_llvm_info(json.dumps(data))
    except MismatchError as exc:
        assert exc.message.startswith("cmake/llvm-info.json ")
        return
    assert len(info.llvm_hash) == 40 and info.build_number >= 0
    assert all(len(v) == 64 and int(v, 16) >= 0 for v in info.sha256sum.values())


@given(st.text(max_size=200))
def test_any_text_is_parsed_or_refused_with_exit_5(text: str) -> None:
    try:
        parse_llvm_info(text)
    except MismatchError:
        pass


@given(st.dictionaries(st.text(min_size=1, max_size=20), st.one_of(st.text(max_size=70), st.integers()), max_size=6))
def test_sums_that_are_not_64_hex_digits_are_set_aside_by_suffix(sums: dict[str, object]) -> None:
    info = parse_llvm_info(json.dumps({"llvm_hash": HASH, "build_number": 1, "sha256sum": sums}))
    assert set(info.sha256sum) | set(info.malformed) == set(sums)
    assert not set(info.sha256sum) & set(info.malformed)


@pytest.mark.parametrize(
    "bad",
    [
        {"llvm_hash": HASH[:39], "build_number": 1},
        {"llvm_hash": HASH},
        {"llvm_hash": HASH, "build_number": True},
        {"llvm_hash": HASH, "build_number": "2"},
        {"llvm_hash": HASH, "build_number": -1},
        [HASH],
    ],
)
def test_malformed_files_are_refused(bad: object) -> None:
    with pytest.raises(MismatchError):
        parse_llvm_info(json.dumps(bad))


# -- the package per era ---------------------------------------------------------------------------


def test_the_package_after_3_8_has_a_build_number_and_a_sum() -> None:
    package = package_for(json.dumps(UPSTREAM_INFO), HASH, RULES["3.8.0"], UBUNTU, {}, BASE)
    assert package.name == "llvm-62b7cf96-ubuntu-x64-2"
    assert package.url == f"{BASE}/llvm-62b7cf96-ubuntu-x64-2.tar.gz"
    assert package.sha256 == "6" * 64 and package.archive == "llvm-62b7cf96-ubuntu-x64-2.tar.gz"


def test_the_package_before_3_8_has_neither() -> None:
    package = package_for(None, HASH, RULES["3.3.1"], UBUNTU, {}, BASE)
    assert (package.name, package.sha256, package.build_number) == ("llvm-62b7cf96-ubuntu-x64", None, None)


def test_a_suffix_without_a_sum_is_refused_naming_the_ones_there() -> None:
    with pytest.raises(MismatchError, match=r"no sha256 for centos-x64.*ubuntu-x64"):
        package_for(
            json.dumps(UPSTREAM_INFO), HASH, RULES["3.8.0"], UBUNTU, {"TRITON_LLVM_SYSTEM_SUFFIX": "centos-x64"}, BASE
        )
    broken = {**UPSTREAM_INFO, "sha256sum": {"ubuntu-x64": "not hex"}}
    with pytest.raises(MismatchError, match="a malformed sha256 for ubuntu-x64"):
        package_for(json.dumps(broken), HASH, RULES["3.8.0"], UBUNTU, {}, BASE)


def test_no_package_for_this_machine_is_a_clear_refusal() -> None:
    with pytest.raises(MismatchError, match=r"no prebuilt LLVM for this machine.*ppc64le"):
        package_for(None, HASH, RULES["3.8.0"], Host("Linux", "ppc64le", (2, 36)), {}, BASE)


@pytest.mark.parametrize(
    ("host", "version", "env", "suffix"),
    [
        (UBUNTU, "3.8.0", {}, "ubuntu-x64"),
        (Host("Linux", "x86_64", (2, 28)), "3.8.0", {}, "almalinux-x64"),
        (Host("Linux", "x86_64", (2, 17)), "3.5.0", {}, "centos-x64"),  # CentOS 7 until 3.6
        (Host("Linux", "x86_64", (2, 17)), "3.6.0", {}, "almalinux-x64"),
        (Host("Linux", "aarch64", (2, 34), 'ID="almalinux"\n'), "3.3.0", {}, "almalinux-arm64"),
        (Host("Linux", "aarch64", (2, 34), 'ID="almalinux"\n'), "3.2.0", {}, "ubuntu-arm64"),
        (Host("Linux", "arm64", (2, 34), "ID=ubuntu\n"), "3.8.0", {}, "ubuntu-arm64"),
        (Host("Darwin", "arm64", None), "3.8.0", {}, "macos-arm64"),
        (Host("Darwin", "x86_64", None), "3.1.0", {}, "macos-x64"),
        (UBUNTU, "3.5.0", {"TRITON_LLVM_SYSTEM_SUFFIX": "almalinux-x64"}, "almalinux-x64"),
        (UBUNTU, "3.4.0", {"TRITON_LLVM_SYSTEM_SUFFIX": "almalinux-x64"}, "ubuntu-x64"),  # not read by 3.4
        (Host("Linux", "x86_64", None), "3.8.0", {}, None),  # musl
        (Host("Windows", "AMD64", None), "3.8.0", {}, None),
    ],
)
def test_the_suffix_is_chosen_as_upstream_does_in_each_era(
    host: Host, version: str, env: dict[str, str], suffix: str | None
) -> None:
    assert host_suffix(host, RULES[version], env)[0] == suffix


def test_a_suffix_that_cannot_be_a_file_name_is_refused() -> None:
    with pytest.raises(ConfigError):
        host_suffix(UBUNTU, RULES["3.8.0"], {"TRITON_LLVM_SYSTEM_SUFFIX": "../../etc"})


# -- HTTP headers ----------------------------------------------------------------------------------


@given(st.integers(0, 10**17), st.integers(0, 10**17), st.integers(0, 10**17) | st.none())  # up to 18 digits
def test_content_range_round_trips(first: int, length: int, total: int | None) -> None:
    last = first + length
    shown = f"bytes {first}-{last}/{'*' if total is None else total}"
    parsed = parse_content_range(shown)
    if total is not None and last >= total:
        assert parsed is None
    else:
        assert parsed == (first, last, total)


@given(st.text(max_size=60))
def test_any_content_range_is_a_range_or_none(text: str) -> None:
    parsed = parse_content_range(text)
    assert parsed is None or (0 <= parsed[0] <= parsed[1] and (parsed[2] is None or parsed[1] < parsed[2]))
    total = unsatisfied_total(text)
    assert total is None or total >= 0


@pytest.mark.parametrize("text", ["bytes 5-4/10", "bytes 0-10/10", "bytes=0-1/2", "bytes -1-2/3", "0-1/2", ""])
def test_bad_content_ranges(text: str) -> None:
    assert parse_content_range(text) is None


@given(st.text(max_size=30) | st.none())
def test_any_content_length_is_a_count_or_none(text: str | None) -> None:
    value = parse_content_length(text)
    assert value is None or (value >= 0 and str(value) == str(int((text or "").strip())))


def test_content_length_and_unsatisfied_range() -> None:
    assert [parse_content_length(v) for v in ("123", " 7 ", "-1", "1e3", "١٢", None)] == [
        123,
        7,
        None,
        None,
        None,
        None,
    ]
    assert unsatisfied_total("bytes */1234") == 1234 and unsatisfied_total("bytes 0-1/2") is None


# -- archive members -------------------------------------------------------------------------------

TOP = "llvm-62b7cf96-ubuntu-x64-2"
NAMES = st.lists(st.sampled_from([TOP, "..", ".", "bin", "lib", "", "x", "llvm-other"]), min_size=1, max_size=5).map(
    "/".join
)


@given(
    NAMES | st.text(max_size=40),
    st.sampled_from([FILE, FOLDER, SYMLINK, HARDLINK, OTHER]),
    NAMES | st.text(max_size=30),
)
def test_a_member_accepted_stays_inside_the_package_folder(name: str, kind: str, linkname: str) -> None:
    if member_problem(name, kind, linkname, TOP) is not None:
        return
    dest = "/dest"
    where = posixpath.normpath(posixpath.join(dest, name))
    assert where == f"{dest}/{TOP}" or where.startswith(f"{dest}/{TOP}/")
    assert kind != OTHER
    if kind == SYMLINK:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(where), linkname))
        assert target == f"{dest}/{TOP}" or target.startswith(f"{dest}/{TOP}/")
    if kind == HARDLINK:
        target = posixpath.normpath(posixpath.join(dest, linkname))
        assert target.startswith(f"{dest}/{TOP}")


@pytest.mark.parametrize(
    ("name", "kind", "link", "why"),
    [
        ("/etc/passwd", FILE, "", "an absolute path"),
        (f"{TOP}/../evil", FILE, "", "'..'"),
        ("other/bin/llc", FILE, "", "outside the package's folder"),
        (f"{TOP}/bin/x", SYMLINK, "/usr/bin/python3", "absolute path"),
        (f"{TOP}/bin/x", SYMLINK, "../../../etc/passwd", "pointing out"),
        (f"{TOP}/lib/x", HARDLINK, "etc/passwd", "outside"),
        (f"{TOP}/dev/sda", OTHER, "", "device file"),
    ],
)
def test_members_that_would_escape_are_refused(name: str, kind: str, link: str, why: str) -> None:
    problem = member_problem(name, kind, link, TOP)
    assert problem is not None and why in problem


def test_members_of_a_real_package_are_accepted() -> None:
    assert member_problem(TOP, FOLDER, "", TOP) is None
    assert member_problem(f"{TOP}/bin/clang++", SYMLINK, "clang", TOP) is None
    assert member_problem(f"{TOP}/lib/libLLVM.so", SYMLINK, "libLLVM.so.19", TOP) is None
    assert member_problem(f"{TOP}/bin/ld.lld", HARDLINK, f"{TOP}/bin/lld", TOP) is None


# -- --llvm and LLVMConfig.cmake ----------------------------------------------------------------------


def test_the_llvm_setting() -> None:
    assert parse_llvm_setting("llvm", "Prebuilt") == "prebuilt" and parse_llvm_setting("llvm", "source") == "source"
    assert parse_llvm_setting("llvm", "/opt/llvm/") == "/opt/llvm"
    assert parse_llvm_setting("llvm", "./build").endswith("/build")
    with pytest.raises(ValueError, match="did you mean 'prebuilt'"):
        parse_llvm_setting("llvm", "prebuild")
    with pytest.raises(ValueError, match="a path needs a '/'"):
        parse_llvm_setting("llvm", "llvm-19")
    assert parse_llvm_setting("llvm_prebuilt_url", "http://127.0.0.1:8000/x/") == "http://127.0.0.1:8000/x"
    with pytest.raises(ValueError):
        parse_llvm_setting("llvm_prebuilt_url", "ftp://mirror/llvm")
    for malformed in ("https://[::1/x", "https://h:99999/x", "https://u:pw@[::1/x"):
        with pytest.raises(ValueError, match="not a valid URL"):
            parse_llvm_setting("llvm_prebuilt_url", malformed)


URL = "https://llvm.example/llvm-builds"


def test_the_llvm_setting_is_one_of_four_sources() -> None:
    assert parse_llvm_source("AUTO", URL) == LlvmAuto(URL)
    assert parse_llvm_source("source", URL) == LlvmFromSource()
    assert parse_llvm_source("Prebuilt", URL) == LlvmPrebuilt(URL)
    assert parse_llvm_source("/opt/llvm/", URL) == LlvmTree(Path("/opt/llvm"))
    assert parse_llvm_source("~/llvm", URL) == LlvmTree(Path.home() / "llvm")
    # The settings hold the setting's text; read back, it is the same source.
    settings = Settings(workspace=Path("/ws"), llvm=parse_llvm_setting("llvm", "./build"), llvm_prebuilt_url=URL)
    assert settings.llvm_source == LlvmTree(Path.cwd() / "build")
    assert Settings(workspace=Path("/ws")).llvm_source == LlvmAuto(Settings(workspace=Path("/ws")).llvm_prebuilt_url)


@given(st.text(max_size=40))
def test_any_llvm_value_is_a_source_that_reads_back_the_same_or_refused(text: str) -> None:
    """What a user types is one of the four sources, or a ValueError; a source's setting text parses back
    to itself (it is what settings.json remembers)."""
    try:
        source = parse_llvm_source(text, URL)
    except ValueError:
        return
    assert parse_llvm_source(source.setting, URL) == source


def test_an_llvm_tree_whose_config_is_a_fifo_is_read_without_hanging(tmp_path: Path) -> None:
    (tmp_path / "lib" / "cmake" / "llvm").mkdir(parents=True)
    os.mkfifo(tmp_path / "lib" / "cmake" / "llvm" / "LLVMConfig.cmake")
    report = inspect_tree(tmp_path)  # a blocking open of the FIFO would never return
    assert report.targets is None and report.missing


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ('set(LLVM_TARGETS_TO_BUILD "X86;NVPTX;AMDGPU")\n', ("X86", "NVPTX", "AMDGPU")),
        ("set(LLVM_TARGETS_TO_BUILD X86;NVPTX)\n", ("X86", "NVPTX")),
        ("set(LLVM_PACKAGE_VERSION 19.1.0git)\n", None),
    ],
)
def test_targets_from_llvm_config_cmake(text: str, targets: tuple[str, ...] | None) -> None:
    assert parse_targets(text) == targets


@given(st.text(max_size=200))
def test_any_llvm_config_cmake_gives_targets_or_none(text: str) -> None:
    targets = parse_targets(text)
    assert targets is None or all(t and ";" not in t and " " not in t for t in targets)


def test_a_tree_without_a_gpu_target_or_mlir_is_refused_with_exit_2() -> None:
    from pathlib import Path

    with pytest.raises(ConfigError, match="without the AMDGPU target"):
        check_contents(TreeReport(Path("/t"), (), ("X86", "NVPTX"), HASH), "nvidia")
    with pytest.raises(ConfigError, match="MLIR's CMake package"):
        check_contents(TreeReport(Path("/t"), ("MLIR's CMake package",), None, HASH), "nvidia")


def test_the_suffix_rules_are_the_checkouts_not_its_version_number() -> None:
    """#7430 (TRITON_LLVM_SYSTEM_SUFFIX) landed while main said 3.4.0 and #8191 (no CentOS 7) while it said
    3.5.0: a main commit of either window follows its files."""
    setup = (
        'TRITON_VERSION = "3.4.0"\n'
        'if (env_system_suffix := os.environ.get("TRITON_LLVM_SYSTEM_SUFFIX", None)):\n'
        '            system_suffix = "almalinux-arm64"\n'
    )
    rules = read_setup_py_args({"setup.py": setup}.get, ".")
    assert (rules.suffix_env, rules.almalinux_arm64, rules.centos_x64) == (True, True, False)
    env = {"TRITON_LLVM_SYSTEM_SUFFIX": "almalinux-x64"}
    assert host_suffix(UBUNTU, rules, env)[0] == "almalinux-x64"
    assert host_suffix(Host("Linux", "x86_64", (2, 17)), rules, {})[0] == "almalinux-x64"  # no centos-x64 there
    assert package_for(None, HASH, rules, UBUNTU, env, BASE).name == f"llvm-{HASH[:8]}-almalinux-x64"
