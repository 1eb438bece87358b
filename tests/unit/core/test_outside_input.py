"""Parsers of outside input, under any input: repository URLs and refs, tritondev.toml (and
[tool.tritondev]), the workspace env file, the purge journal.

The property each test holds: the parser answers, or raises a TritondevError whose exit code is the
documented one (2 for all of these) with a message; no other exception escapes (that would be exit
70), nothing hangs, and nothing on disk changes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.core.errors import ExitCode, TritondevError
from bootstrap.core.redact import without_credentials
from bootstrap.core.settings.settings import load_settings
from bootstrap.core.settings.settings_table import MAX_JOBS
from bootstrap.env.envfile import read_env_file, update_env_file
from bootstrap.git.refs import validate_commit, validate_raw_base, validate_ref, validate_repo_url
from bootstrap.purge import restore
from tests.support.snapshot import diff, snapshot

SETTINGS = settings(database=None, deadline=None, max_examples=150, suppress_health_check=list(HealthCheck))

URL_PARTS = st.sampled_from(
    [
        "https://",
        "http://",
        "ssh://",
        "git://",
        "file://",
        "raw+https://",
        "ext::",
        "ftp://",
        "",
        "-",
        "~",
        "/",
        "[",
        "]",
        "::1",
        "[::1]",
        "@",
        ":",
        "user:pw@",
        "tok@",
        "host",
        "127.0.0.1",
        ":99999",
        ":80",
        "/path",
        "?token=x",
        "#frag",
        "%00",
        "\0",
        " ",
        "\n",
        "..",
        "HOST",
        "localhost",
        "git@github.com:a/b",
    ]
)
urls = st.lists(URL_PARTS | st.text(max_size=6), max_size=8).map("".join)

P = ParamSpec("P")
T = TypeVar("T")


def only_usage_errors(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """Run `call`; a TritondevError must be exit 2 with a message. Anything else fails the test."""
    try:
        return call(*args, **kwargs)
    except TritondevError as exc:
        assert exc.exit_code == ExitCode.USAGE, exc
        assert exc.message and exc.fix
        return None


@SETTINGS
@given(urls)
def test_any_repository_url_is_accepted_or_exit_2(text: str) -> None:
    found = only_usage_errors(validate_repo_url, text)
    if found is not None:
        assert found.kind in ("path", "git", "raw")
        assert not found.url.startswith("-")
        if found.kind == "path":
            assert os.path.isabs(found.url)
    only_usage_errors(validate_raw_base, text)


@pytest.mark.parametrize(
    "url",
    [
        "https://user:s3cret@[::1/x.git",
        "git://[::1",
        "https://h:99999/x",
        "file://HOST",
        "file://",
        "raw+https://[::1",
        "https://h:port/x",
        "~nosuchuser-tritondev/x",
    ],
)
def test_malformed_urls_are_exit_2(url: str) -> None:
    with pytest.raises(TritondevError) as info:
        validate_repo_url(url, "Triton URL")
    assert info.value.exit_code == ExitCode.USAGE


@SETTINGS
@given(st.text(max_size=60))
def test_any_ref_or_commit_is_accepted_or_exit_2(text: str) -> None:
    ref = only_usage_errors(validate_ref, text)
    assert ref is None or not ref.startswith("-")
    commit = only_usage_errors(validate_commit, text)
    assert commit is None or (len(commit) == 40 and set(commit) <= set(string.hexdigits.lower()))


SECRET = "S3KRxyz"


@SETTINGS
@given(urls)
def test_credentials_never_stay_in_a_url_kept_on_disk(text: str) -> None:
    for url in (f"https://u:{SECRET}@h/x", f"https://{SECRET}@h/x?access_token={SECRET}", text):
        kept = without_credentials(url)
        assert SECRET not in kept
        assert without_credentials(kept) == kept


# -- tritondev.toml -----------------------------------------------------------------------------------

toml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
KEYS = [
    "build_type",
    "jobs",
    "link_jobs",
    "python",
    "triton_url",
    "ccache",
    "ccache_remote",
    "backend",
    "mirror",
    "torch_ref",
    "workspace",
    "tritondev",
    "tool",
]


def _toml_text(data: dict[str, Any]) -> str:
    """A TOML rendering good enough for the fuzzer: JSON scalars are TOML scalars; tables inline."""

    def value(v: Any) -> str:
        if v is None:
            return '""'
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"

    return "".join(f"{json.dumps(k)} = {value(v)}\n" for k, v in data.items())


@SETTINGS
@given(
    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), toml_values, max_size=4)
    | st.binary(max_size=120).map(lambda b: {"__raw__": b})
)
def test_any_settings_file_loads_or_is_exit_2_and_changes_nothing(
    tmp_path_factory: pytest.TempPathFactory, data: dict[str, Any]
) -> None:
    ws = tmp_path_factory.mktemp("ws")
    raw = data.get("__raw__")
    name = "tritondev.toml" if len(data) % 2 or raw is not None else "pyproject.toml"
    text = (
        raw
        if isinstance(raw, bytes)
        else _toml_text(data if name == "tritondev.toml" else {"tool": {"tritondev": data}}).encode()
    )
    (ws / name).write_bytes(text)
    before = snapshot(ws)
    loaded = only_usage_errors(load_settings, {"workspace": str(ws)}, {})
    assert diff(before, snapshot(ws)) == []
    if loaded is not None and loaded.jobs is not None:
        assert 1 <= loaded.jobs <= MAX_JOBS


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe jobs = 3\n", "not UTF-8"),
        (b"a = " + b"[" * 3000 + b"]" * 3000 + b"\n", "too deeply"),
        (b"jobs = 100000000000000000000000000000\n", "at most"),
        (b'python = "/a\\u0000b"\n', "control character"),
        (b"backend = 3\n", "expected a string"),
        (b'ccache = "maybe"\n', "true or false"),
        (b"jobs = 2.5\n", "whole number"),
    ],
)
def test_bad_settings_files_say_what_is_wrong(tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "tritondev.toml").write_bytes(content)
    with pytest.raises(TritondevError, match=message) as info:
        load_settings({"workspace": str(tmp_path)}, {})
    assert info.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize("kind", ["loop", "dangling", "fifo", "folder"])
def test_a_settings_file_that_is_not_a_file_is_never_skipped(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "tritondev.toml"
    if kind == "loop":
        path.symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(tmp_path / "nowhere.toml")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    with pytest.raises(TritondevError, match="cannot read") as info:
        load_settings({"workspace": str(tmp_path)}, {})
    assert info.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize("table", ["3", '"x"', "[1, 2]"])
def test_a_tool_tritondev_that_is_not_a_table_is_an_error(tmp_path: Path, table: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n[tool]\ntritondev = {table}\n")
    with pytest.raises(TritondevError, match="must be a table"):
        load_settings({"workspace": str(tmp_path)}, {})


def test_every_value_shown_by_config_show_is_masked(tmp_path: Path) -> None:
    from bootstrap.core.settings.settings import describe

    (tmp_path / "tritondev.toml").write_text(
        f'triton_url = "https://user:{SECRET}@h/t.git"\nllvm_url = "https://{SECRET}@h/l.git"\n'
        f'pytorch_url = "https://h/p.git?access_token={SECRET}"\n'
        f'ccache_remote = "http://cache.example/x|bearer-token={SECRET}"\n'
    )
    rows = describe(load_settings({"workspace": str(tmp_path)}, {}))
    assert SECRET not in json.dumps([dataclasses.asdict(row) for row in rows])


# -- the workspace env file -----------------------------------------------------------------------------

env_lines = st.lists(
    st.sampled_from(
        [
            "export A=1",
            "export B='x y'",
            'export C="a\\"b"',
            "export D='unclosed",
            "echo hi",
            "# note",
            "export E=$HOME",
            "export F=a#b",
            "",
            "export G=",
            "  export H='ü'",
        ]
    )
    | st.text(max_size=20).map(lambda t: "export Z=" + t),
    max_size=6,
)


@SETTINGS
@given(env_lines | st.binary(max_size=60).map(lambda b: [b.decode("latin-1")]))
def test_any_env_file_reads_or_is_exit_2(tmp_path_factory: pytest.TempPathFactory, lines: list[str]) -> None:
    ws = tmp_path_factory.mktemp("env")
    path = ws / "env.sh"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
    before = snapshot(ws)
    values = only_usage_errors(read_env_file, path)
    assert values is None or all(isinstance(v, str) for v in values.values())
    assert diff(before, snapshot(ws)) == []
    if values is None:  # malformed: an update must refuse too, and write nothing
        only_usage_errors(update_env_file, path, {"TRITON_PTXAS_PATH": "/x"})
        assert diff(before, snapshot(ws)) == []


def test_env_file_updates_keep_every_other_line(tmp_path: Path) -> None:
    path = tmp_path / "env.sh"
    path.write_text("# mine\nsource ~/.cuda-env\nexport TRITON_PTXAS_PATH=/old\nexport KEEP='me'\n")
    update_env_file(path, {"TRITON_PTXAS_PATH": "/new ptxas", "NEW": "1"})
    assert path.read_text() == (
        "# mine\nsource ~/.cuda-env\nexport TRITON_PTXAS_PATH='/new ptxas'\nexport KEEP='me'\nexport NEW=1\n"
    )
    update_env_file(path, {"TRITON_PTXAS_PATH": None})
    assert read_env_file(path) == {"KEEP": "me", "NEW": "1"}
    assert path.read_text().startswith("# mine\nsource ~/.cuda-env\n")


def test_a_fifo_env_file_is_an_error_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "env.sh")
    with pytest.raises(TritondevError, match="not a regular file"):
        read_env_file(tmp_path / "env.sh")


# -- the purge journal ----------------------------------------------------------------------------------

journal_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["--index-url=http://evil", "/abs/path", "file:///x.whl", "index", "url", "editable", "triton"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "version",
                    "source",
                    "kind",
                    "path",
                    "url",
                    "index_url",
                    "extra_index_urls",
                    "installed_at",
                    "placeholder",
                    "executable",
                    "id",
                    "target",
                    "removed",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@SETTINGS
@given(journal_values)
def test_any_journal_run_is_read_or_exit_2_and_never_gives_pip_an_option(run: Any) -> None:
    found = only_usage_errors(restore.read_run, run, "purge-journal.json")
    if found is None:
        return
    for step in restore.plan_restore(found.removed, {}):
        args = step.pip_args or ()
        assert args[:2] == ("install", "--no-deps") if args else True
        # after the fixed prefix, nothing is an option except the index options tritondev adds itself
        for index, arg in enumerate(args[2:], start=2):
            if arg.startswith("-"):
                assert arg in ("-e", "--index-url", "--extra-index-url"), args
                assert not args[index + 1].startswith("-")


def test_a_journal_of_the_wrong_shape_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "purge-journal.json"
    path.write_text(
        json.dumps(
            {"format": 1, "runs": [{"id": "x", "target": ["not", "an", "object"], "removed": [{"name": "triton"}]}]}
        )
    )
    # The file and the field: which run, which key, what it is instead.
    said = r"purge-journal.json is not as tritondev writes it: the last run: 'target' is list, not an object"
    with pytest.raises(TritondevError, match=said) as info:
        restore.last_purge(path)
    assert info.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize("url", ["ssh://[::1]@", "ssh://[::1]@h/x", "ssh://a@[::1]@x"])
def test_a_login_that_is_no_login_is_dropped_once_and_for_all(url: str) -> None:
    """urlsplit reads `[::1]` before an `@` as user `[`, password `:1]`: keeping `[` as the login made a second
    pass mask it, so what is kept on disk was not a fixed point."""
    kept = without_credentials(url)
    assert without_credentials(kept) == kept and "[" not in kept
