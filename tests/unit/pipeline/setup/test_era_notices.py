"""What setup says and writes for a Triton era: 3.0/3.1 ignore TRITON_HOME; the hand preset builds the
build type setup.py builds (its default is TritonRelBuildWithAsserts since 3.0)."""

from __future__ import annotations

import dataclasses

import pytest

from bootstrap.pipeline.setup.plan import plan_setup
from tests.unit.pipeline.setup.facts_for_tests import fresh


@pytest.mark.parametrize(("version", "said"), [("3.0.0", True), ("3.1.0", True), ("3.2.0", False), ("3.8.0", False)])
def test_before_3_2_setup_says_where_the_downloads_go(version: str, said: bool) -> None:
    facts = fresh("python-dir")
    layout = dataclasses.replace(facts.pins.layout, version=version)
    plan = plan_setup(dataclasses.replace(facts, pins=dataclasses.replace(facts.pins, layout=layout)))
    notes = [n for n in plan.notices if "ignores TRITON_HOME" in n]
    assert bool(notes) is said
    if said:
        assert "$HOME/.triton" in notes[0]


@pytest.mark.parametrize(
    ("build_type", "cmake"),
    [
        ("TritonRelBuildWithAsserts", "TritonRelBuildWithAsserts"),
        ("Debug", "Debug"),
        ("RelWithDebInfo", "RelWithDebInfo"),
        ("Release", "Release"),
    ],
)
def test_the_hand_preset_builds_what_setup_py_builds(build_type: str, cmake: str) -> None:
    """setup.py's get_build_type() has no Release: CMake's Release goes in through TRITON_APPEND_CMAKE_ARGS,
    which setup.py appends after its own -DCMAKE_BUILD_TYPE; the preset builds the same."""
    facts = fresh("root-json")
    plan = plan_setup(dataclasses.replace(facts, settings=dataclasses.replace(facts.settings, build_type=build_type)))
    assert dict(plan.presets.triton_cache)["CMAKE_BUILD_TYPE"] == cmake
    env = dict(plan.presets.pip_install.env)
    assert ("DEBUG" in env, "REL_WITH_DEB_INFO" in env) == (build_type == "Debug", build_type == "RelWithDebInfo")
    assert env.get("TRITON_APPEND_CMAKE_ARGS") == ("-DCMAKE_BUILD_TYPE=Release" if build_type == "Release" else None)
