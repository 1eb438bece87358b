"""Settings precedence, sources and errors (real files and environment, no mocks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings import SETTINGS, load_settings


def _env(ws: Path, **extra: str) -> dict[str, str]:
    return {"TRITONDEV_WORKSPACE": str(ws), **extra}


def test_defaults_have_source_default(tmp_path: Path) -> None:
    settings = load_settings({}, _env(tmp_path))
    assert settings.build_type == "RelWithDebInfo"
    assert settings.source_of("build_type") == "default"
    assert settings.source_of("workspace") == "env:TRITONDEV_WORKSPACE"


def test_precedence_default_file_env_cli(tmp_path: Path) -> None:
    (tmp_path / "tritondev.toml").write_text('build_type = "Debug"\njobs = 3\nbackend = "amd"\n')
    env = _env(tmp_path, TRITONDEV_JOBS="5", TRITONDEV_BACKEND="nvidia")
    settings = load_settings({"backend": "amd"}, env)
    assert (settings.build_type, settings.source_of("build_type")) == ("Debug", f"file:{tmp_path / 'tritondev.toml'}")
    assert (settings.jobs, settings.source_of("jobs")) == (5, "env:TRITONDEV_JOBS")
    assert (settings.backend, settings.source_of("backend")) == ("amd", "cli:--backend")


def test_pyproject_tool_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.tritondev]\nllvm_build_type = "Debug"\n')
    settings = load_settings({}, _env(tmp_path))
    assert settings.llvm_build_type == "Debug"
    assert settings.source_of("llvm_build_type").endswith("pyproject.toml")


def test_tritondev_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tritondev]\nbuild_type = "Debug"\n')
    (tmp_path / "tritondev.toml").write_text('build_type = "Release"\n')
    assert load_settings({}, _env(tmp_path)).build_type == "Release"


def test_unknown_file_key_suggests(tmp_path: Path) -> None:
    (tmp_path / "tritondev.toml").write_text('buld_type = "Debug"\n')
    with pytest.raises(ConfigError) as info:
        load_settings({}, _env(tmp_path))
    assert "did you mean 'build_type'" in info.value.message


def test_unknown_env_var_suggests(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings({}, _env(tmp_path, TRITONDEV_BUILDTYPE="Debug"))
    assert "TRITONDEV_BUILD_TYPE" in info.value.message


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('build_type = "Fast"\n', "expected one of Debug, Release, RelWithDebInfo"),
        ("jobs = 0\n", "must be 1 or more"),
        ('jobs = "many"\n', "jobs"),
        ('ccache = "maybe"\n', "expected true or false"),
        ("build_type = [", "not valid TOML"),
        ('workspace = "/x"\n', "unknown key 'workspace'"),
    ],
)
def test_bad_file_values(tmp_path: Path, content: str, needle: str) -> None:
    (tmp_path / "tritondev.toml").write_text(content)
    with pytest.raises(ConfigError) as info:
        load_settings({}, _env(tmp_path))
    assert needle in info.value.message


def test_choices_are_case_insensitive(tmp_path: Path) -> None:
    assert load_settings({"build_type": "debug"}, _env(tmp_path)).build_type == "Debug"


def test_workspace_discovered_from_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tritondev.toml").write_text("")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert load_settings({}, {}).workspace == tmp_path


def test_every_setting_has_env_var_and_field(tmp_path: Path) -> None:
    settings = load_settings({}, _env(tmp_path))
    for setting in SETTINGS:
        assert hasattr(settings, setting.name)
        assert setting.env_var == "TRITONDEV_" + setting.name.upper()


def test_bare_python_name_is_looked_up_on_path(tmp_path: Path) -> None:
    import shutil

    settings = load_settings({"python": "python3"}, _env(tmp_path))
    assert settings.python == Path(shutil.which("python3") or "")


