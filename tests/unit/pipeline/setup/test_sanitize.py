"""--sanitize address: setup.py's TRITON_BUILD_WITH_ASAN in the install's environment (and so in its
fingerprint), the same flags in the hand-driven preset, and `build --sanitize` switching it."""

from __future__ import annotations

from bootstrap.core.settings.settings import load_settings
from bootstrap.pipeline.recipe.presets import make_presets
from bootstrap.pipeline.setup.build import with_sanitizer
from bootstrap.pipeline.setup.plan_inputs import stable
from tests.unit.pipeline.test_units import _inputs


def test_address_sanitizer_reaches_setup_py_and_the_preset() -> None:
    plain = make_presets(_inputs())
    asan = make_presets(_inputs(sanitize="address"))
    assert dict(asan.triton_env)["TRITON_BUILD_WITH_ASAN"] == "1"
    assert "TRITON_BUILD_WITH_ASAN" not in dict(plain.triton_env)
    assert stable(asan.pip_install.env) != stable(plain.pip_install.env)  # another triton-install fingerprint
    cache = dict(asan.triton_cache)
    assert cache["CMAKE_C_FLAGS"] == cache["CMAKE_CXX_FLAGS"] == "-fsanitize=address"  # what setup.py passes
    assert "CMAKE_CXX_FLAGS" not in dict(plain.triton_cache)
    assert make_presets(_inputs(sanitize="none")).triton_env == plain.triton_env


def test_build_switches_the_sanitizer_of_setups_install() -> None:
    install = make_presets(_inputs()).pip_install
    on = with_sanitizer(install, "address")
    assert dict(on.env)["TRITON_BUILD_WITH_ASAN"] == "1" and on.argv == install.argv
    assert with_sanitizer(on, "none") == install
    assert with_sanitizer(on, "address") == on


def test_the_setting() -> None:
    settings = load_settings({"sanitize": "Address"}, {})
    assert settings.sanitize == "address" and settings.source_of("sanitize") == "cli:--sanitize"
    assert load_settings({}, {}).sanitize is None
