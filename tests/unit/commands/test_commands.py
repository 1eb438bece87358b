"""Command functions called directly (no Typer, no subprocess), and the options `@command` gives them."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import pytest
import typer

from bootstrap import cli
from bootstrap.commands import options
from bootstrap.commands.cache.removal import clear, prune
from bootstrap.commands.config import show
from bootstrap.commands.doctor import doctor
from bootstrap.commands.env import env
from bootstrap.commands.setup import setup
from bootstrap.core.context import AppContext, invocation
from bootstrap.core.errors import ConfigError, UsageError
from bootstrap.core.outcome import ExitStatus
from bootstrap.core.settings.settings_table import BY_NAME, SETTINGS
from tests.support.environ import dropped


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in list(os.environ):
        if dropped(var):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_config_show_called_directly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tritondev.toml").write_text('build_type = "Debug"\n')
    show(workspace=tmp_path, json=True)
    data = json.loads(capsys.readouterr().out)
    assert data["workspace"] == str(tmp_path)
    assert data["settings"]["build_type"]["value"] == "Debug"
    assert data["settings"]["workspace"]["source"] == "cli:--workspace"
    assert invocation().json  # an error from here on would be reported as JSON


def test_a_bad_setting_raises_the_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITONDEV_BUILD_TYPE", "Fast")
    with pytest.raises(ConfigError, match="expected one of TritonRelBuildWithAsserts, Debug, RelWithDebInfo, Release"):
        show(workspace=tmp_path)


def test_env_routes_backend_into_the_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env(workspace=tmp_path, backend="amd", dump_ir=True, shell="fish")
    out = capsys.readouterr().out
    assert "set -gx AMDGCN_ENABLE_DUMP '1'" in out and "NVPTX_ENABLE_DUMP" not in out
    with pytest.raises(ConfigError, match="expected one of nvidia, amd"):
        env(workspace=tmp_path, backend="cuda")
    assert not (tmp_path / "logs").exists()


def _cache_entry(cache: Path, name: str) -> None:
    entry = cache / ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQ" + name[:3].upper())
    entry.mkdir(parents=True)
    (entry / f"{name}.json").write_text(json.dumps({"name": name, "triton_version": "3.4.0"}))
    (entry / f"{name}.ttir").write_text("module {}\n")


def test_cache_clear_and_prune_called_directly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    _cache_entry(cache, "add_kernel")
    _cache_entry(cache, "mul_kernel")
    clear(kernel="add_*", dir=cache, workspace=tmp_path / "ws", dry_run=True, json=True)
    planned = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in planned["removed"]] == ["add_kernel"] and planned["dry_run"] is True
    assert len(list(cache.iterdir())) == 2  # --dry-run removed nothing
    clear(kernel="add_*", dir=cache, workspace=tmp_path / "ws", json=True)
    assert [p.name.endswith("ADD") for p in cache.iterdir()] == [False]
    with pytest.raises(UsageError, match="prune needs a rule"):
        prune(dir=cache, workspace=tmp_path / "ws")
    assert not (tmp_path / "ws").exists()


def test_doctor_lists_its_checks_called_directly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doctor(list_checks=True, check=["toolchain"], workspace=tmp_path / "ws", json=True)
    names = [c["name"] for c in json.loads(capsys.readouterr().out)["checks"]]
    assert names and all(name.startswith("toolchain.") for name in names)
    with pytest.raises(UsageError, match="did you mean"):
        doctor(check=["toolchain.cmak"], workspace=tmp_path / "ws")


def test_command_signature_is_own_options_then_shared_ones() -> None:
    parameters = list(inspect.signature(doctor).parameters)
    # Last, the parameter Typer gives its context in (never an option): the lock names the command by it.
    assert parameters == [
        "arch",
        "check",
        "list_checks",
        "fix",
        "strict",
        "deep",
        "workspace",
        "python",
        "triton_src",
        "json",
        "dry_run",
        "verbose",
        "tritondev_running",
    ]
    assert list(inspect.signature(setup).parameters) == [
        *(s.name for s in SETTINGS),
        "dry_run",
        "json",
        "verbose",
        "tritondev_running",
    ]
    with pytest.raises(TypeError):
        show(build_type="Debug")  # config show takes no --build-type


def test_the_body_receives_the_context(tmp_path: Path) -> None:
    seen: list[AppContext] = []

    @options.command("workspace", "jobs", "dry_run", writes_logs=True)
    def probe(ctx: AppContext, name: str = "x") -> ExitStatus:
        seen.append(ctx)
        return ExitStatus(len(name))

    assert probe(workspace=tmp_path, jobs=3, dry_run=True, name="yy") == 2  # the outcome's exit status
    ctx = seen[0]
    assert (ctx.settings.jobs, ctx.settings.source_of("jobs"), ctx.dry_run) == (3, "cli:--jobs", True)
    assert ctx.runner.log_dir is None  # writes_logs, but not under --dry-run
    probe(workspace=tmp_path)
    assert seen[1].runner.log_dir == tmp_path / "logs" and seen[1].settings.source_of("jobs") == "default"


def test_unknown_shared_option_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown shared option 'jbos'"):
        options.command("jbos")


def _typer_command(*path: str) -> typer.core.TyperCommand:
    group = typer.main.get_command(cli.build_app())
    command = group
    for name in path:
        assert isinstance(command, typer.core.TyperGroup), command
        command = command.commands[name]
    assert isinstance(command, typer.core.TyperCommand), command
    return command


COMMANDS = [
    ("setup",),
    ("build",),
    ("pins",),
    ("purge",),
    ("doctor",),
    ("verify",),
    ("compile",),
    ("env",),
    ("run",),
    ("cache", "ls"),
    ("cache", "show"),
    ("cache", "clear"),
    ("cache", "prune"),
    ("config", "show"),
    ("docker", "build"),
    ("docker", "run"),
]


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_setting_options_help_is_the_tables(path: tuple[str, ...]) -> None:
    for param in _typer_command(*path).params:
        if param.name in BY_NAME:
            setting = BY_NAME[param.name]
            assert isinstance(param, typer.core.TyperOption), param
            assert param.help == setting.option_help
            assert setting.option in param.opts + [o.split("/")[0] for o in param.opts]
            assert param.default is None  # not given: file, environment or default decide


def test_setup_has_an_option_for_every_setting() -> None:
    names = {param.name for param in _typer_command("setup").params}
    assert set(BY_NAME) <= names
    jobs = next(p for p in _typer_command("setup").params if p.name == "jobs")
    assert "-j" in jobs.opts
    ccache = next(p for p in _typer_command("setup").params if p.name == "ccache")
    assert ccache.secondary_opts == ["--no-ccache"]
