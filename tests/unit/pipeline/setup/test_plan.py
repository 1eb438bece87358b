"""The setup plan, from hand-made facts, for each Triton layout era of the test world: which steps
would run and why, with which commands, and which are up to date. No process starts here."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import pytest

from bootstrap.pipeline.built.records import StepRecord, StepStatus
from bootstrap.pipeline.llvm.builds import LlvmFolders, LlvmSite
from bootstrap.pipeline.setup.plan import SetupPlan, plan_setup, reinstall_reasons
from tests.unit.pipeline.setup.facts_for_tests import (
    ERAS,
    LLVM,
    OTHER_HEAD,
    PYTHON,
    TRITON,
    WS,
    dry_drive,
    finished,
    fresh,
    in_place,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing has it from Python 3.11; only mypy reads it here

ALL_STEPS = [
    "venv",
    "checkout-triton",
    "checkout-llvm-project",
    "llvm-configure",
    "llvm-build",
    "purge",
    "triton-requirements",
    "triton-install",
    "verify",
]
SETUP_DIR = {
    "python-dir": WS / "src/triton/python",
    "root-setup": WS / "src/triton",
    "root-hash": WS / "src/triton",
    "root-json": WS / "src/triton",
}


def statuses(plan: SetupPlan) -> dict[str, str]:
    return {s.name: s.status.value for s in plan.steps}


class SettingsChange(TypedDict, total=False):
    """The settings a re-run changes (a subset of Settings, with the same types)."""

    build_type: str
    llvm_build_type: str
    jobs: int | None
    link_jobs: int | None


def rerun(era: str, **settings: Unpack[SettingsChange]) -> tuple[SetupPlan, SetupPlan]:
    """(plan of a finished workspace, plan of the same workspace with `settings` changed)."""
    done = in_place(fresh(era))
    before = finished(done, plan_setup(done))
    changed = dataclasses.replace(before, settings=dataclasses.replace(before.settings, **settings))
    return plan_setup(before), plan_setup(changed)


@pytest.mark.parametrize("era", ERAS)
def test_first_run_builds_everything_in_order(era: str) -> None:
    plan = plan_setup(fresh(era))
    assert [s.name for s in plan.steps] == ALL_STEPS
    assert statuses(plan) == {**dict.fromkeys(ALL_STEPS, "would run"), "purge": "up to date"}
    assert plan.step("purge").reason == "a new environment has no other triton"
    steps = [c.step for c in plan.commands()]
    assert steps == [
        "venv",
        *["checkout-triton"] * 4,
        *["checkout-llvm-project"] * 4,
        "llvm-configure",
        "llvm-build",
        "triton-requirements",
        "triton-install",
    ]
    install = plan.step("triton-install").commands[0]
    assert install.argv[:4] == (str(PYTHON), "-m", "pip", "install")
    assert install.argv[-3:] == ("-v", "-e", str(SETUP_DIR[era]))
    assert plan.step("triton-requirements").commands[0].argv[5:] == ERAS[era].build_requires
    configure = dict(a[2:].split("=", 1) for a in plan.step("llvm-configure").commands[0].argv if a.startswith("-D"))
    # Projects as the pinned commit's build-llvm-project.sh has them, else the version table (3.3: mlir;llvm).
    assert configure["LLVM_ENABLE_PROJECTS"] == ("mlir;llvm" if era == "python-dir" else "mlir;llvm;lld")
    assert plan.llvm.build == WS / "build" / "llvm" / plan.presets.llvm_key and plan.llvm.reused_from is None
    assert plan.step("triton-install").after == ("llvm-build", "triton-requirements")
    assert plan.step("verify").after == ("triton-install",)


@pytest.mark.parametrize("era", ERAS)
def test_a_finished_workspace_plans_nothing(era: str) -> None:
    again, _ = rerun(era)
    assert set(statuses(again).values()) == {"up to date"}
    assert again.commands() == []
    assert again.step("purge").reason == "environment unchanged since the last setup"
    assert again.step("checkout-triton").reason == f"at the pin {TRITON[:12]}"


@pytest.mark.parametrize("era", ERAS)
def test_a_changed_build_type_reruns_only_triton_install_and_verify(era: str) -> None:
    _, plan = rerun(era, build_type="Debug")
    would = [name for name, status in statuses(plan).items() if status == "would run"]
    assert would == ["triton-install", "verify"]
    assert plan.step("triton-install").reason == "changed: env"
    assert plan.step("verify").reason == "depends on re-run step: triton-install"
    assert [c.step for c in plan.commands()] == ["triton-install"]
    assert dict(plan.step("triton-install").commands[0].env)["DEBUG"] == "1"


@pytest.mark.parametrize("era", ERAS)
def test_jobs_are_not_an_input_but_the_llvm_build_type_is(era: str) -> None:
    _, plan = rerun(era, jobs=1, link_jobs=1)
    assert set(statuses(plan).values()) == {"up to date"}
    _, debug_llvm = rerun(era, llvm_build_type="Debug")
    # Another key: a folder of its own, so both builds are kept.
    assert statuses(debug_llvm)["llvm-configure"] == statuses(debug_llvm)["llvm-build"] == "would run"
    assert statuses(debug_llvm)["triton-install"] == "would run"


@pytest.mark.parametrize("era", ERAS)
def test_dry_run_runs_the_plans_commands_through_the_dry_run_runner(era: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CCACHE_BASEDIR", raising=False)
    facts = dataclasses.replace(fresh(era), dry_run=True)
    assert facts.toolchain.ccache is not None
    plan = plan_setup(facts)
    report = dry_drive(facts)  # under --dry-run no process starts and nothing is written
    # What the build runs with besides its own variables: LLVM's build gets ccache's base_dir.
    base_dir = {"llvm-build": {"CCACHE_BASEDIR": str(facts.workspace.root)}}
    assert [(c.step, c.argv, dict(c.env)) for c in report.commands] == [
        (c.step, c.argv, {**dict(c.env), **base_dir.get(c.step, {})}) for c in plan.commands()
    ]
    assert {o.name: o.status.value for o in report.steps} == statuses(plan)
    assert not report.up_to_date and report.verify is None


@pytest.mark.parametrize("era", ERAS)
def test_an_llvm_build_of_another_workspace_is_reused(era: str) -> None:
    first = plan_setup(in_place(fresh(era)))
    other = Path("/other/build/llvm") / first.presets.llvm_key
    stamp = {
        "configure_fingerprint": first.step("llvm-configure").fingerprint,
        "build_fingerprint": first.step("llvm-build").fingerprint,
        "source": "/other/src/llvm-project",
    }
    facts = in_place(fresh(era))
    site = LlvmSite(other, Path("/other/src/llvm-project"), stamp, True, True, source_head=facts.pins.llvm_commit)
    facts = dataclasses.replace(facts, llvm_folders=dataclasses.replace(facts.llvm_folders, registered=(site,)))
    plan = plan_setup(facts)
    assert plan.llvm.build == other and plan.llvm.link_to == other and plan.llvm.reused_from == str(other)
    assert statuses(plan)["llvm-configure"] == statuses(plan)["llvm-build"] == "up to date"
    assert plan.step("llvm-configure").reason == f"reused {other}"
    assert dict(plan.step("triton-install").commands[0].env)["LLVM_SYSPATH"] == str(other)
    # Good news: a note, not a warning.
    assert plan.notes == (f"LLVM build reused from {other} (same commit, flags and toolchain)",)
    assert not any("reused" in n for n in plan.notices)
    # A build of the key whose flags differ (another fingerprint) is not reused.
    stale = dataclasses.replace(site, stamp={**stamp, "build_fingerprint": "0" * 64})
    facts = dataclasses.replace(facts, llvm_folders=dataclasses.replace(facts.llvm_folders, registered=(stale,)))
    assert plan_setup(facts).llvm.reused_from is None
    # Once linked, the next run finds the link and keeps using the build; gone, it builds here.
    linked = dataclasses.replace(facts, llvm_folders=LlvmFolders(facts.llvm_folders.mine, None, site))
    assert plan_setup(linked).llvm.build == other
    gone = dataclasses.replace(
        facts, llvm_folders=LlvmFolders(facts.llvm_folders.mine, None, dataclasses.replace(site, configured=False))
    )
    assert plan_setup(gone).llvm.unlink and plan_setup(gone).llvm.build == facts.llvm_folders.mine


@pytest.mark.parametrize("era", ERAS)
def test_a_build_whose_checkout_moved_on_is_not_reused(era: str) -> None:
    """Another workspace bumped its LLVM checkout after building: its build tree now refers to the
    other commit's headers, so it is neither reused nor kept linked."""
    first = plan_setup(in_place(fresh(era)))
    other = Path("/other/build/llvm") / first.presets.llvm_key
    stamp = {
        "configure_fingerprint": first.step("llvm-configure").fingerprint,
        "build_fingerprint": first.step("llvm-build").fingerprint,
        "source": "/other/src/llvm-project",
    }
    facts = in_place(fresh(era))
    moved = LlvmSite(other, Path("/other/src/llvm-project"), stamp, True, True, source_head="1" * 40)
    registered = dataclasses.replace(facts, llvm_folders=dataclasses.replace(facts.llvm_folders, registered=(moved,)))
    assert plan_setup(registered).llvm.reused_from is None
    assert plan_setup(registered).llvm.build == facts.llvm_folders.mine
    linked = dataclasses.replace(facts, llvm_folders=LlvmFolders(facts.llvm_folders.mine, None, moved))
    assert plan_setup(linked).llvm.unlink and plan_setup(linked).llvm.build == facts.llvm_folders.mine


@pytest.mark.parametrize("era", ERAS)
def test_a_dirty_checkout_kept_with_allow_dirty_is_built_as_it_stands(era: str) -> None:
    done = in_place(fresh(era, allow_dirty=True))
    done = finished(done, plan_setup(done))
    report = dataclasses.replace(
        done.triton.report,
        head=OTHER_HEAD,
        dirty_files=("lib/Dialect/Triton/IR/Ops.cpp",),
        local_commits=(OTHER_HEAD,),
        action="dirty-kept",
    )
    dirty = dataclasses.replace(done, triton=dataclasses.replace(done.triton, report=report, edits="ops-edited"))
    plan = plan_setup(dirty)
    assert plan.step("checkout-triton").status == StepStatus.UP_TO_DATE
    assert plan.step("checkout-triton").reason == "local work kept as it stands (--allow-dirty)"
    assert plan.step("triton-install").reason == "changed: edits, head"
    assert [c.step for c in plan.commands()] == ["triton-install"]
    assert any("triton checkout differs from the pin (1 changed file(s), 1 local commit(s))" in n for n in plan.notices)


@pytest.mark.parametrize("era", ERAS)
def test_the_venv_to_be_created_and_one_cut_short(era: str) -> None:
    plan = plan_setup(fresh(era))
    assert plan.step("venv").commands[0].argv == ("/usr/bin/python3", "-m", "venv", str(WS / "venv"))
    assert plan.step("triton-requirements").inputs["version"] is None  # known once the venv exists
    facts = fresh(era)
    cut = dataclasses.replace(facts, target=dataclasses.replace(facts.target, clear_venv=True))
    assert plan_setup(cut).step("venv").commands[0].argv[3] == "--clear"
    # The venv was deleted under a finished workspace: everything installed into it comes again.
    done = in_place(fresh(era))
    done = finished(done, plan_setup(done))
    gone = dataclasses.replace(done, target=fresh(era).target)
    would = [n for n, s in statuses(plan_setup(gone)).items() if s == "would run"]
    assert would == ["venv", "triton-requirements", "triton-install", "verify"]


def test_an_interrupted_requirements_install_is_forced() -> None:
    done = in_place(fresh("root-json"))
    done = finished(done, plan_setup(done))
    cut = dataclasses.replace(done, records={**done.records, "triton-requirements": StepRecord(None)})
    step = plan_setup(cut).step("triton-requirements")
    assert step.reason == "interrupted last time" and "--force-reinstall" in step.commands[0].argv


def test_a_changed_environment_is_scanned_and_a_missing_install_reinstalled() -> None:
    done = in_place(fresh("root-json"))
    done = finished(done, plan_setup(done))
    changed = dataclasses.replace(
        done, target=dataclasses.replace(done.target, listing="a wheel came in", own_install_present=False)
    )
    plan = plan_setup(changed)
    assert plan.step("purge").status == StepStatus.WOULD_RUN and plan.step("purge").commands == ()
    assert plan.step("triton-install").reason == "output missing: triton is not installed from this checkout"
    assert plan.step("verify").status == StepStatus.WOULD_RUN


def test_reinstall_reasons_keep_edits_for_ninja() -> None:
    done = in_place(fresh("root-json"))
    plan = plan_setup(finished(done, plan_setup(done)))
    record = StepRecord(plan.step("triton-install").fingerprint, plan.step("triton-install").inputs, {})
    now = dict(plan.step("triton-install").inputs)
    assert reinstall_reasons(record, now, True) == []
    assert reinstall_reasons(record, {**now, "edits": "Ops.cpp edited"}, True) == []
    assert reinstall_reasons(record, {**now, "setup_files": "x", "head": LLVM}, True) == [
        f"HEAD moved to {LLVM[:12]} (the version names the commit)",
        "setup.py or pyproject.toml changed",
    ]
    assert reinstall_reasons(record, now, False) == ["triton is no longer installed from this checkout"]
    assert reinstall_reasons(StepRecord(None), now, True) == ["the last install did not finish"]
    assert reinstall_reasons(record, {**now, "version": "3.12.1"}, True) == ["the target interpreter changed"]


# What each era's setup.py passes (bootstrap.git.setup_py): the hand-configured build passes the same.
HAND_CONFIGURED = {
    "python-dir": (
        {"LLVM_INCLUDE_DIRS", "LLVM_LIBRARY_DIR", "pybind11_DIR"},
        {"LLVM_SYSPATH", "TRITON_WHEEL_DIR", "TRITON_CACHE_PATH", "TRITON_VERSION"},
    ),
    "root-setup": (
        {"LLVM_INCLUDE_DIRS", "LLVM_SYSPATH", "TRITON_WHEEL_DIR", "pybind11_DIR"},
        {"TRITON_CACHE_PATH", "TRITON_VERSION"},
    ),
    "root-hash": (
        {"LLVM_SYSPATH", "TRITON_WHEEL_DIR", "TRITON_CACHE_PATH", "pybind11_DIR"},
        {"LLVM_INCLUDE_DIRS", "TRITON_VERSION"},
    ),
    "root-json": (
        {"LLVM_SYSPATH", "TRITON_WHEEL_DIR", "TRITON_CACHE_PATH", "TRITON_VERSION", "nanobind_ROOT"},
        {"LLVM_INCLUDE_DIRS", "pybind11_DIR"},
    ),
}


@pytest.mark.parametrize("era", ERAS)
def test_the_hand_configured_build_passes_what_the_eras_setup_py_passes(era: str) -> None:
    plan = plan_setup(in_place(fresh(era)))
    cache = dict(plan.presets.triton_cache)
    passed, absent = HAND_CONFIGURED[era]
    assert passed <= set(cache) and not absent & set(cache), sorted(cache)
    assert cache["LLVM_ENABLE_WERROR"] == "ON" and cache["Python3_INCLUDE_DIR"] == "/usr/include/python3.11"
    if "TRITON_WHEEL_DIR" in cache:  # inside the hand-configured folder: nothing lands in the package
        assert cache["TRITON_WHEEL_DIR"].startswith(str(plan.presets.triton_cmake_build_dir))
    if "TRITON_VERSION" in cache:
        assert cache["TRITON_VERSION"] == f"3.8.0+git{TRITON[:8]}"
    if "TRITON_CACHE_PATH" in cache:
        assert cache["TRITON_CACHE_PATH"] == str(WS / "triton-home" / ".triton")


@pytest.mark.parametrize("era", ERAS)
def test_setup_py_runs_the_targets_cmake_and_keeps_its_build_folder(era: str) -> None:
    install = plan_setup(in_place(fresh(era))).step("triton-install").commands[0]
    env = dict(install.env)
    assert env["PATH"].split(":")[0] == str(WS / "venv" / "bin")
    assert "TRITON_BUILD_DIR" in install.unset
    # Online: a user's TRITON_PTXAS_PATH would make upstream skip bundling its pinned ptxas.
    assert {"TRITON_PTXAS_PATH", "TRITON_OFFLINE_BUILD"} <= set(install.unset)
    assert "PATH" not in plan_setup(in_place(fresh(era))).step("triton-install").inputs["env"]  # not a rebuild
