"""The words the setup table shows for the LLVM build: a first run says so, a rebuild says why."""

from __future__ import annotations

import dataclasses

from bootstrap.pipeline.setup.plan import plan_setup
from tests.unit.pipeline.setup.facts_for_tests import finished, fresh, in_place


def test_a_first_run_says_never_built_here_and_a_changed_build_says_what_changed() -> None:
    first = plan_setup(fresh("root-json"))
    assert first.step("llvm-build").reason == "never built here"
    assert first.step("llvm-configure").reason == "never configured here"
    done = in_place(fresh("root-json"))
    after = finished(done, plan_setup(done))
    assert plan_setup(after).step("llvm-build").reason == "LLVM commit and flags unchanged"
    own = after.llvm_folders.own
    assert own is not None
    stale = dataclasses.replace(own, stamp={**own.stamp, "build_fingerprint": "an older build"})
    changed = dataclasses.replace(after, llvm_folders=dataclasses.replace(after.llvm_folders, own=stale))
    assert plan_setup(changed).step("llvm-build").reason == "LLVM commit, flags or sources changed"
