"""Settings precedence, sources and errors (real files and environment, no mocks)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings.settings import load_settings
from bootstrap.core.settings.settings_table import BY_NAME, SETTINGS, Setting, Settings


def _env(ws: Path, **extra: str) -> dict[str, str]:
    return {"TRITONDEV_WORKSPACE": str(ws), **extra}


def test_defaults_have_source_default(tmp_path: Path) -> None:
    settings = load_settings({}, _env(tmp_path))
    assert settings.build_type == "TritonRelBuildWithAsserts"  # what upstream's `pip install -e .` builds
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


def test_the_scripts_own_variables_are_accepted_and_change_no_setting(tmp_path: Path) -> None:
    """shell/tritondev reads TRITONDEV_TOOL_VENV and TRITONDEV_BOOTSTRAP_PYTHON and execs the CLI with them
    still set: a user whose python3 is too old must be able to use them."""
    variables = {
        "TRITONDEV_TOOL_VENV": str(tmp_path / "v"),
        "TRITONDEV_BOOTSTRAP_PYTHON": "/usr/bin/python3.12",
        "TRITONDEV_TEST_PYTHON": "python3",
        "TRITONDEV_GPU_OUT": str(tmp_path / "f.json"),
    }
    settings = load_settings({}, _env(tmp_path, **variables))
    assert settings == load_settings({}, _env(tmp_path))
    assert {s for s in settings.sources.values() if s.startswith("env:")} == {"env:TRITONDEV_WORKSPACE"}


def test_every_variable_the_scripts_read_is_accepted_and_documented() -> None:
    """A TRITONDEV_* variable that a script of shell/ reads is a setting's or one of SCRIPT_VARIABLES, and the
    README names it: the CLI the launcher starts would otherwise reject it."""
    import re

    from bootstrap.core.settings.settings import SCRIPT_VARIABLES

    repo = Path(__file__).resolve().parents[4]
    read = {
        name
        for script in (repo / "shell").iterdir()
        if script.is_file()
        for name in re.findall(r"\$\{?(TRITONDEV_[A-Z_]+)", script.read_text())
    }
    assert {"TRITONDEV_TOOL_VENV", "TRITONDEV_BOOTSTRAP_PYTHON"} <= read
    settings_vars = {s.env_var for s in SETTINGS}
    assert read <= settings_vars | set(SCRIPT_VARIABLES), read - settings_vars - set(SCRIPT_VARIABLES)
    readme = (repo / "README.md").read_text()
    assert [name for name in SCRIPT_VARIABLES if f"`{name}`" not in readme] == []


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('build_type = "Fast"\n', "expected one of TritonRelBuildWithAsserts, Debug, RelWithDebInfo, Release"),
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


# -- the table, derived from the Settings fields ---------------------------------------------------------


def test_every_field_is_a_setting_with_help_env_var_and_option() -> None:
    names = [f.name for f in dataclasses.fields(Settings) if f.name != "sources"]
    assert [s.name for s in SETTINGS] == names
    for setting in SETTINGS:
        assert setting.help and (setting.help[0].isupper() or setting.help.startswith("ccache")), setting.name
        assert not setting.help.endswith("."), setting.name
        assert setting.env_var == "TRITONDEV_" + setting.name.upper()
        assert setting.option == "--" + setting.name.replace("_", "-")
        assert setting.env_var in setting.option_help


def test_table_types_and_defaults_are_the_fields() -> None:
    assert (BY_NAME["build_type"].kind, BY_NAME["jobs"].kind, BY_NAME["ccache"].kind) == (str, int, bool)
    assert (BY_NAME["python"].kind, BY_NAME["mirror"].kind, BY_NAME["workspace"].kind) == (Path, Path, Path)
    defaults = Settings(workspace=Path("/w"))
    for setting in SETTINGS[1:]:
        assert getattr(defaults, setting.name) == setting.default, setting.name
    assert [s.name for s in SETTINGS if not s.in_file] == ["workspace"]
    assert [s.name for s in SETTINGS if s.secret] == ["ccache_remote"]


def test_option_help_names_choices_env_var_and_default() -> None:
    assert BY_NAME["build_type"].option_help == (
        "Triton build type: TritonRelBuildWithAsserts, Debug, RelWithDebInfo or Release (env: TRITONDEV_BUILD_TYPE;"
        " default: TritonRelBuildWithAsserts, what upstream's `pip install -e .` builds (-O2 -g, assertions and"
        " LLVM_DEBUG kept))."
    )
    assert BY_NAME["ccache"].option_help.endswith("(env: TRITONDEV_CCACHE; default: on).")
    assert BY_NAME["allow_dirty"].option_help.endswith("default: off).")
    assert BY_NAME["mirror"].option_help.endswith("(env: TRITONDEV_MIRROR).")  # no default to show


def _per_source(value: Callable[[str], str]) -> tuple[str, str, str]:
    return value("file"), value("env"), value("cli")


def _three_values(setting: Setting, tmp_path: Path) -> tuple[object, object, object]:
    """Values for file, env and command line, each different from the one before."""
    if setting.kind is bool:
        return (not setting.default, setting.default, not setting.default)
    if setting.choices:
        return (setting.choices[-1], setting.choices[0], setting.choices[-1])
    if setting.kind is int:
        return (3, 5, 7)
    if setting.kind is Path:
        return _per_source(lambda where: str(tmp_path / f"{setting.name}-{where}"))
    if setting.name == "ccache_remote":
        return _per_source(lambda where: f"redis://{where}.example:6379")
    if setting.name == "llvm":  # source, prebuilt or an absolute path
        return ("prebuilt", "source", str(tmp_path / "llvm-build"))
    if setting.name == "llvm_prebuilt_url":
        return _per_source(lambda where: f"https://{where}.example/llvm-builds")
    return ("from-file", "from-env", "from-cli")


def _as_file_value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value!r}".replace("'", '"')


@pytest.mark.parametrize("name", [s.name for s in SETTINGS if s.in_file])
def test_precedence_of_every_setting(tmp_path: Path, name: str) -> None:
    setting = BY_NAME[name]
    in_file, in_env, on_cli = _three_values(setting, tmp_path)
    (tmp_path / "tritondev.toml").write_text(f"{name} = {_as_file_value(in_file)}\n")

    def shown(value: object) -> object:
        return Path(str(value)) if setting.kind is Path else value

    loaded = load_settings({}, _env(tmp_path))
    assert (getattr(loaded, name), loaded.source_of(name)) == (shown(in_file), f"file:{tmp_path / 'tritondev.toml'}")
    env = _env(tmp_path, **{setting.env_var: str(in_env)})
    loaded = load_settings({}, env)
    assert (getattr(loaded, name), loaded.source_of(name)) == (shown(in_env), f"env:{setting.env_var}")
    loaded = load_settings({name: on_cli}, env)
    assert (getattr(loaded, name), loaded.source_of(name)) == (shown(on_cli), f"cli:{setting.option}")


def test_readme_settings_table_lists_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[4] / "README.md").read_text()
    section = readme[readme.index("## Settings") : readme.index("The scripts in `shell/` read")]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) == len(SETTINGS)
    for setting, row in zip(SETTINGS, rows, strict=True):
        key, env_var, option = (cell.strip() for cell in row.strip("|").split("|")[:3])
        assert key.startswith(f"`{setting.name}`") and env_var == f"`{setting.env_var}`", row
        assert option.startswith(f"`{setting.option}"), row
