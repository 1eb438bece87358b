"""Pure parts of the doctor: arch parsing, version floors, pairing, the ptxas verdict, parsers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bootstrap.core.errors import UsageError
from bootstrap.doctor.arch import first_triton_for, parse_arch
from bootstrap.doctor.catalog import load_checks, select
from bootstrap.doctor.checks.cache import mount_of
from bootstrap.doctor.checks.gpu import libcuda_dirs
from bootstrap.doctor.checks.packages import shadow_folders
from bootstrap.doctor.checks.ptxas import Attempt, Failure, classify_failure, decide, upgrade_requirement
from bootstrap.doctor.engine import run_checks
from bootstrap.doctor.facts import Facts
from bootstrap.doctor.model import CheckOutcome, CheckSpec, Status, ok
from bootstrap.doctor.versions import check_pairing, jax_ffi_support
from bootstrap.kernels.gpus import parse_nvidia_smi


@pytest.mark.parametrize(
    ("text", "arch"),
    [
        ("sm_121", 121),
        ("sm_121a", 121),
        ("121", 121),
        ("sm_90a", 90),
        ("SM_90", 90),
        ("cuda:100", 100),
        ("12.1", 121),
        ("9.0", 90),
        ("sm_100f", 100),
        ("sm_80", 80),
    ],
)
def test_parse_arch_accepts_the_usual_spellings(text: str, arch: int) -> None:
    assert parse_arch(text) == arch


@pytest.mark.parametrize("text", ["", "sm_", "gfx942", "sm_12", "sm_1210", "ampere", "sm_60", "90b", "12.10"])
def test_parse_arch_rejects_nonsense_with_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_arch(text)
    assert "sm_90" in info.value.message and info.value.fix


def test_upgrade_target_for_new_archs() -> None:
    assert first_triton_for(121) == "3.7.1"
    assert first_triton_for(120) == "3.3.0"
    assert first_triton_for(103) == "3.6.0"
    assert first_triton_for(90) == "3.0.0"
    assert first_triton_for(150) is None  # newer than anything the table knows


# Real JAX version strings (field-problems.md Part 3, §3.1-3.3). The target exists from the
# 2026-04-23 nightly, is CUDA-graph capable from 2026-04-27, and in every release from 0.10.1.
JAX_TABLE = [
    # version,                  ffi,   graphs
    ("0.10.0", False, False),  # released 2026-04-15, before the FFI target
    ("0.10.1.dev20260416", False, False),  # first nightly of the 0.10.1 cycle
    ("0.10.1.dev20260420", False, False),  # a ".dev0" floor would wrongly admit this one
    ("0.10.1.dev20260423", True, False),  # target registered, no CUDA-graph support yet
    ("0.10.1.dev20260426", True, False),
    ("0.10.1.dev20260427", True, True),  # jax#37094 imported
    ("0.10.1.dev20260501", True, True),  # a stable floor of 0.10.1 would wrongly reject this one
    ("0.10.1.dev20260501+248575b135", True, True),  # git build: the local label says nothing
    ("0.10.1rc1", True, True),  # a release candidate of the first release with it
    ("0.10.1", True, True),
    ("0.10.2.dev20260601", True, True),
    ("0.10.2", True, True),
    ("0.11.0", True, True),
    ("0.11.2", True, True),
    ("0.9.2", False, False),
    ("0.9.2.dev20260317", False, False),
    ("0.8.0.dev20250930", False, False),
]


@pytest.mark.parametrize(("version", "ffi", "graphs"), JAX_TABLE)
def test_jax_floors_over_real_versions(version: str, ffi: bool, graphs: bool) -> None:
    support = jax_ffi_support(version)
    assert (support.ffi_target, support.cuda_graphs) == (ffi, graphs), support.reason
    assert support.nightly == (".dev" in version)


def test_pairing_of_a_nightly_torch_and_its_triton() -> None:
    requires = ["filelock", 'triton==3.5.0+git7416ffcb; platform_system == "Linux"', "sympy>=1.13.3"]
    assert check_pairing(requires, {"triton": "3.5.0+git7416ffcb"}).matches is True
    bad = check_pairing(requires, {"triton": "3.5.0+gitdeadbeef"})
    assert bad.matches is False and "7416ffcb" in (bad.requirement or "")
    missing = check_pairing(requires, {"pytorch-triton": "3.5.0+git7416ffcb"})
    assert missing.matches is False and "not installed" in missing.note
    # A source build of the pinned commit checked out detached: same 8-hex hash, maybe longer.
    assert check_pairing(requires, {"triton": "3.5.0+git7416ffcb1"}).matches is True


def test_pairing_of_a_release_torch_accepts_a_source_build_of_the_release() -> None:
    requires = ['triton==3.5.1; platform_system == "Linux" and platform_machine == "x86_64"']
    assert check_pairing(requires, {"triton": "3.5.1"}).matches is True
    assert check_pairing(requires, {"triton": "3.5.1+git12345678"}).matches is True
    assert check_pairing(requires, {"triton": "3.5.0"}).matches is False
    assert check_pairing(["numpy"], {"triton": "3.5.0"}).matches is None
    # requirements behind an extra are not the pin
    assert check_pairing(['triton==3.0.0; extra == "opt"'], {"triton": "3.5.0"}).matches is None


def test_classify_failure_from_real_messages() -> None:
    # Messages as Triton 3.5.1 and 3.2.0 print them (see test_doctor_ptxas.py for the live runs).
    assert (
        classify_failure(
            "PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\n"
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"
        )
        is Failure.PTXAS_UNKNOWN_ARCH
    )
    assert (
        classify_failure("RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 13.0")
        is Failure.PTXAS_TOO_NEW
    )
    assert (
        classify_failure(
            "RuntimeError: ... ptxas fatal   : Value 'sm_121' is not defined for option 'gpu-name'",
            "'sm_121' is not a recognized processor for this target (ignoring processor)",
        )
        is Failure.LLVM_UNKNOWN_ARCH
    )
    assert classify_failure("ValueError: something else") is Failure.OTHER


def test_upgrade_requirement_never_names_the_installed_version() -> None:
    assert upgrade_requirement("3.2.0", 121) == "'triton>=3.7.1'"
    assert upgrade_requirement("3.6.0+git1234abcd", 110) == "'triton>=3.7.1'"
    assert upgrade_requirement("3.7.1", 121) == "'triton>3.7.1'"  # it should work: anything newer
    assert upgrade_requirement("3.9.0", 150) == "'triton>3.9.0'"  # an arch newer than the table


def _attempt(label: str, ok_: bool, failure: Failure | None = None) -> Attempt:
    return Attempt(label, {"TRITON_PTXAS_PATH": label} if label != "default" else {}, ok_, failure)


def test_verdicts() -> None:
    assert decide(_attempt("default", True), []).status == "ok"
    fixable = decide(
        _attempt("default", False, Failure.PTXAS_UNKNOWN_ARCH),
        [_attempt("/old", False, Failure.PTXAS_UNKNOWN_ARCH), _attempt("/new", True)],
    )
    assert fixable.status == "fixable" and fixable.working and fixable.working.label == "/new"
    too_old = decide(
        _attempt("default", False, Failure.LLVM_UNKNOWN_ARCH), [_attempt("/new", False, Failure.PTXAS_TOO_NEW)]
    )
    assert too_old.status == "upgrade-triton" and too_old.working is None
    nothing = decide(_attempt("default", False, Failure.PTXAS_UNKNOWN_ARCH), [])
    assert nothing.status == "no-ptxas"


def test_parse_nvidia_smi_output() -> None:
    # Output format of `nvidia-smi --query-gpu=index,name,compute_cap,driver_version --format=csv,noheader`
    # and the banner of plain `nvidia-smi` (no GPU on this machine to produce them live).
    query = "0, NVIDIA H100 80GB HBM3, 9.0, 570.124.06\n1, NVIDIA GB10, 12.1, 580.95.05\n"
    banner = "| NVIDIA-SMI 570.124.06     Driver Version: 570.124.06     CUDA Version: 12.8     |"
    info = parse_nvidia_smi(query, banner)
    assert info.driver == "570.124.06" and info.cuda == "12.8"
    assert [g.arch for g in info.gpus] == [90, 121]
    assert parse_nvidia_smi("", "").gpus == ()


def test_libcuda_search_order(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "libcuda.so.1").write_bytes(b"")
    ldconfig = "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    assert libcuda_dirs({"TRITON_LIBCUDA_PATH": "/opt/x"}, ldconfig) == (["/opt/x"], "TRITON_LIBCUDA_PATH")
    assert libcuda_dirs({}, ldconfig) == (["/usr/lib/x86_64-linux-gnu"], "ldconfig -p")
    assert libcuda_dirs({"LD_LIBRARY_PATH": f"/nope:{lib}"}, "") == ([str(lib)], "LD_LIBRARY_PATH")


def test_mount_of_picks_the_longest_mount_point() -> None:
    mounts = "/dev/vda / ext4 rw 0 0\nserver:/home /home nfs4 rw 0 0\nserver:/home/x/y /home/x/y ext4 rw 0 0\n"
    assert mount_of(Path("/home/alice/.triton/cache"), mounts) == ("/home", "nfs4")
    assert mount_of(Path("/home/x/y/z"), mounts) == ("/home/x/y", "ext4")
    assert mount_of(Path("/tmp"), mounts) == ("/", "ext4")
    assert mount_of(Path("/homework"), mounts) == ("/", "ext4")


def test_shadow_folders(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "triton").mkdir(parents=True)
    other = tmp_path / "other"
    (other / "triton").mkdir(parents=True)
    cwd = tmp_path / "work"
    cwd.mkdir()
    assert shadow_folders(cwd, "", [site]) == []
    (cwd / "triton.py").write_text("")
    assert shadow_folders(cwd, os.pathsep.join([str(site), str(other)]), [site]) == [
        cwd / "triton.py",
        other / "triton",
    ]


def test_registry_has_named_checks_in_every_group() -> None:
    registry = load_checks()
    assert len(registry) >= 25
    assert {spec.group for spec in registry.values()} >= {
        "python",
        "packages",
        "toolchain",
        "resources",
        "gpu",
        "ptxas",
        "settings",
        "cache",
        "workspace",
        "jax",
    }
    assert [s.name for s in select(["ptxas"], registry)] == ["ptxas.arch", "ptxas.overrides", "ptxas.driver"]
    with pytest.raises(UsageError) as info:
        select(["ptxas.arc"], registry)
    assert "did you mean 'ptxas.arch'" in info.value.message


def test_a_crashing_check_is_reported_and_the_others_go_on() -> None:
    def boom(facts: Facts) -> CheckOutcome:
        raise KeyError("no such fact")

    specs = [
        CheckSpec("python.boom", "python", "crashes", boom),
        CheckSpec("python.fine", "python", "works", lambda facts: ok("fine")),
    ]
    # Neither check reads the facts, and real ones need a whole AppContext to gather.
    first, second = run_checks(specs, facts=None)  # type: ignore[arg-type]
    assert first.status is Status.ERROR and "KeyError" in first.summary and "no such fact" in first.summary
    assert second.status is Status.OK and second.summary == "fine"


def test_a_variable_no_shell_can_export_is_offered_as_env_before_the_command() -> None:
    """Triton 3.3 and 3.6 read ptxas-blackwell's override as TRITON_PTXAS-BLACKWELL_PATH (before #8945)."""
    import shlex
    from pathlib import Path

    from bootstrap.doctor.checks.ptxas import variable_fix

    hyphen = variable_fix({"TRITON_PTXAS-BLACKWELL_PATH": "/usr/local/cuda/bin/ptxas"}, Path("/ws/env.sh"), 100)
    assert hyphen.action is None and "export" not in hyphen.text.split("(")[0]
    command = hyphen.text.removeprefix("run your program as: ").split("  (")[0]
    words = shlex.split(command)
    assert words[:2] == ["env", "TRITON_PTXAS-BLACKWELL_PATH=/usr/local/cuda/bin/ptxas"]
    plain = variable_fix({"TRITON_PTXAS_BLACKWELL_PATH": "/cuda/bin/ptxas"}, Path("/ws/env.sh"), 100)
    assert plain.action == "env" and plain.text.startswith("export TRITON_PTXAS_BLACKWELL_PATH=/cuda/bin/ptxas")


def test_the_disk_estimate_follows_what_llvm_auto_decides() -> None:
    """--llvm auto is no longer "no LLVM built here": its decision, known from this workspace's memory,
    decides the estimate; unknown (the host not asked yet), both sizes are shown and only a shortfall for
    the smaller one is more than a warning."""
    from bootstrap.core.settings.values import LlvmAuto, LlvmFromSource, LlvmPrebuilt, LlvmTree
    from bootstrap.doctor.checks.machine import disk_outcome, llvm_here
    from bootstrap.pipeline.llvm.auto import AutoDecision

    pin, where = "a" * 40, Path("/ws")
    auto = LlvmAuto("https://llvm.example/llvm-builds")
    source = llvm_here(auto, False, AutoDecision("source", "no prebuilt package: macOS x64"), pin)
    prebuilt = llvm_here(auto, False, AutoDecision("prebuilt", "Triton's package for this pin exists"), pin)
    unknown = llvm_here(auto, False, None, pin)
    assert (source.built, prebuilt.built, unknown.built) == (True, False, None)
    assert llvm_here(auto, True, None, pin).built is False  # an LLVM build is already here
    assert llvm_here(LlvmFromSource(), False, None, None).built is True
    assert llvm_here(LlvmPrebuilt(auto.url), False, None, None).built is False
    assert llvm_here(LlvmTree(Path("/opt/llvm")), False, None, None).built is False
    # RelWithDebInfo Triton: 17 GiB; with a Release LLVM built here: 29 GiB.
    built = disk_outcome(20.0, where, "RelWithDebInfo", "Release", source)
    assert built.status == Status.WARN and "Triton + Release LLVM build needs about 29 GiB" in built.summary
    assert "--llvm auto: a source build for LLVM aaaaaaaaaaaa (no prebuilt package: macOS x64)" in built.summary
    taken = disk_outcome(20.0, where, "RelWithDebInfo", "Release", prebuilt)
    assert taken.status == Status.OK and "needs about 17 GiB (--llvm auto: the prebuilt package" in taken.summary
    both = disk_outcome(20.0, where, "RelWithDebInfo", "Release", unknown)
    assert (
        both.status == Status.WARN
        and "17 GiB with a prebuilt LLVM, 29 GiB with a Release LLVM built here" in both.summary
    )
    assert "enough unless LLVM is built here" in both.summary
    assert both.fix is not None and "--llvm prebuilt" in both.fix.text
    assert disk_outcome(40.0, where, "RelWithDebInfo", "Release", unknown).status == Status.OK
    assert disk_outcome(5.0, where, "RelWithDebInfo", "Release", unknown).status == Status.ERROR
