"""Credentials never leave tritondev: `redact` masks every URL form, and every way out (both
consoles, --json documents, error messages, the option parser's errors, the crash line) masks.

And user text is printed as written: no rich markup, no emoji codes.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bootstrap import cli
from bootstrap.core import ui
from bootstrap.core.errors import ConfigError
from bootstrap.core.redact import redact, redact_data

SETTINGS = settings(database=None, deadline=None, max_examples=200, suppress_health_check=list(HealthCheck))

# A secret: something no surrounding text holds by chance (a marker, then URL-safe or percent-encoded text).
secrets = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&'()*+,;=", min_size=1, max_size=16
).map(lambda s: "Qz9" + s.replace("'", "").replace("&", "").replace(";", ""))
hosts = st.sampled_from(["github.com", "127.0.0.1:8080", "[::1]", "cache.example", "h"])
schemes = st.sampled_from(["https", "http", "ssh", "git", "redis", "raw+https", "git+https", "redis+unix"])
paths = st.sampled_from(["", "/", "/org/repo.git", "/a@b/c", "/x?y=1", "/simple/"])
around = st.sampled_from(["", "error: ", "`git fetch ", "'", '"', "url=", "(log: x) "])


def forms(scheme: str, host: str, path: str, secret: str) -> list[str]:
    return [
        f"{scheme}://user:{secret}@{host}{path}",  # password
        f"{scheme}://{secret}@{host}{path}",  # a token as the user part
        f"{scheme}://user:{secret}@{secret}@{host}{path}",  # an unencoded @ in the password
        f"{scheme}://user:{secret}/x@{host}{path}",  # an unencoded / in the password
        f"{scheme}://{host}{path}?token={secret}",
        f"{scheme}://{host}{path}?a=1&access_token={secret}&b=2",
        f"{scheme}://{host}{path}?private_token={secret}",
        f"{scheme}://{host}{path}|bearer-token={secret}|connect-timeout=100",
        f"{scheme}://{host}{path}|header=Authorization=Bearer {secret}",
        f"user:{secret}@{host if host.startswith('[') else host.split(':')[0]}:org/repo.git",  # scp-like
        f"Authorization: Bearer {secret}",
    ]


@SETTINGS
@given(schemes, hosts, paths, secrets, around, around)
def test_every_form_of_credential_is_masked(
    scheme: str, host: str, path: str, secret: str, before: str, after: str
) -> None:
    for form in forms(scheme, host, path, secret):
        shown = redact(before + form + after)
        assert secret not in shown, (form, shown)
        assert redact(shown) == shown  # idempotent


@SETTINGS
@given(st.text(alphabet=st.characters(exclude_characters="@?&|"), max_size=80))
def test_text_without_credentials_is_unchanged(text: str) -> None:
    assert redact(text) == text


def test_what_stays_readable() -> None:
    assert redact("https://user:pw@github.com/a/b.git") == "https://***:***@github.com/a/b.git"
    assert redact("https://tok@github.com/a/b") == "https://***@github.com/a/b"
    assert redact("ssh://git@github.com/a/b.git") == "ssh://git@github.com/a/b.git"
    assert redact("git@github.com:a/b.git") == "git@github.com:a/b.git"
    assert redact("https://host:8080/a@b") == "https://host:8080/a@b"
    assert (
        redact("redis://user:pw@127.0.0.1:6379|connect-timeout=5") == "redis://***:***@127.0.0.1:6379|connect-timeout=5"
    )


def test_a_password_with_an_unencoded_at_and_slash_is_masked_whole() -> None:
    assert redact("https://u:p@ss/S3CRETC@127.0.0.1:1/x") == "https://***:***@127.0.0.1:1/x"
    assert redact("https://user:p@ss/word@host") == "https://***:***@host"


def test_a_bearer_token_after_a_space_is_masked() -> None:
    assert redact("http://127.0.0.1/c bearer-token=S3CRETF") == "http://127.0.0.1/c bearer-token=***"


def test_redact_data_masks_keys_and_values() -> None:
    data = {"https://t@h/x": ["https://u:p@h", 3, None, {"k": "?token=abc"}]}
    assert json.dumps(redact_data(data)) == json.dumps(
        {"https://***@h/x": ["https://***:***@h", 3, None, {"k": "?token=***"}]}
    )


SECRET = "Qz9secret"


def test_both_consoles_and_json_mask(capsys: pytest.CaptureFixture[str]) -> None:
    ui.out().print(f"https://u:{SECRET}@h/x")
    ui.err().print(f"[bold]https://{SECRET}@h[/bold]")
    ui.info(f"raw+https://h/p?access_token={SECRET}")
    ui.warn(f"http://c/x|bearer-token={SECRET}")
    ui.emit_json({"url": f"https://u:{SECRET}@h", "n": 1, "obj": object()})
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert json.loads(out[out.index("{") :])["n"] == 1


def test_user_text_is_never_markup_or_emoji(capsys: pytest.CaptureFixture[str]) -> None:
    text = "/home/me/:fire: [bold]x[/bold] [red] \\ :smile:"
    ui.info(text)
    ui.note(text)
    ui.warn(text)
    ui.out().print(ui.cell(text))
    out, err = capsys.readouterr()
    assert err.splitlines() == [text, text, f"warning: {text}"]
    assert out.strip() == text


def test_error_messages_are_masked_in_text_and_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bootstrap.core.context import invocation

    invocation().json = True
    cli._report_error(ConfigError(f"Triton URL 'https://u:{SECRET}@h' is rejected", fix=f"not https://{SECRET}@h"))
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert json.loads(out)["exit_code"] == 2


def run_main(args: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    return int(info.value.code or 0)


def test_option_errors_are_masked_and_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["pins", "--triton-url", "x", "--no-such", f"https://u:{SECRET}@h", "--json"]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    document: dict[str, Any] = json.loads(out)
    assert document["exit_code"] == 2 and document["message"]


# -- any URL with credentials, in any position and any quoting ------------------------------------------

# Passwords hold anything but a line break and `@`: quotes, backslashes, spaces, non-ASCII letters.
passwords = st.text(
    alphabet=st.characters(exclude_characters="@\n\r", exclude_categories=("Cs", "Cc")), min_size=1, max_size=20
).map(lambda s: "Qz9" + s)
tokens = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=20, max_size=40)
users = st.sampled_from(["user", "x-access-token", "oauth2", "git"])


def credential_urls(scheme: str, host: str, path: str, user: str, password: str, token: str) -> list[tuple[str, str]]:
    """(URL, the secret it holds) in every userinfo form."""
    return [
        (f"{scheme}://{user}:{password}@{host}{path}", password),
        (f"{scheme}://{token}:x-oauth-basic@{host}{path}", token),  # GitHub's documented token form
        (f"{scheme}://{token}@{host}{path}", token),
    ]


def quotings(text: str) -> list[str]:
    """`text` as it reaches output: as is, quoted by a shell, by repr, by JSON."""
    import shlex

    return [text, shlex.quote(text), repr(text), json.dumps(text), shlex.join(["git", "fetch", text])]


@SETTINGS
@given(schemes, hosts, paths, users, passwords, tokens, around, around)
def test_any_url_with_credentials_in_any_position_and_quoting_is_masked(
    scheme: str, host: str, path: str, user: str, password: str, token: str, before: str, after: str
) -> None:
    for url, _secret in credential_urls(scheme, host, path, user, password, token):
        for quoted in quotings(url):
            shown = redact(before + quoted + after)
            assert url not in shown, (quoted, shown)
            assert f":{password}@" not in shown and f"{token}@" not in shown and f"{token}:" not in shown, shown
            assert redact(shown) == shown


# -- a secret is masked where it is, never searched for elsewhere -----------------------------------------


def _setup_state(remote: str) -> Any:
    """A state/setup.json as setup writes it, the ccache remote (and so its password) in the install's env."""
    from bootstrap.pipeline.built.state import SetupState
    from bootstrap.pipeline.host.toolchain import Tool
    from bootstrap.pipeline.recipe.inputs import Command

    ws = "/home/me/triton work/ws"
    return SetupState(
        triton_src=Path("/home/me/src/triton"),
        setup_dir=Path("/home/me/src/triton/python"),
        python=Path(f"{ws}/venv/bin/python"),
        python_origin="workspace venv",
        llvm_build=Path(f"{ws}/build/llvm/llvm-1234abcd-release-0"),
        triton_commit="0123456789abcdef" * 2 + "01234567",
        install=Command(
            step="triton-install",
            argv=(f"{ws}/venv/bin/python", "-m", "pip", "install", "-e", "."),
            cwd="/home/me/src/triton/python",
            env=(("TRITON_BUILD_WITH_CCACHE", "true"), ("CCACHE_REMOTE_STORAGE", remote)),
        ),
        ccache=Tool("ccache", "/usr/bin/ccache", "4.8.3"),
    )


_PLAIN = json.dumps(_setup_state("redis://127.0.0.1:6379").to_json(), indent=2, sort_keys=True)
# Secrets that are words of tritondev's own documents (a key, a path, a step name, JSON syntax), and any
# other text: a password may be anything but `@`, a line break, or a leading space.
_substrings = st.tuples(st.integers(0, len(_PLAIN) - 1), st.integers(1, 24)).map(
    lambda at: _PLAIN[at[0] : at[0] + at[1]]
)
any_secrets = st.one_of(
    st.sampled_from(
        [
            "triton",
            "triton_src",
            "tritondev-setup-state",
            "kind",
            "python",
            "/home/me",
            '": "',
            "install",
            "ccache",
            "127.0.0.1",
            "6379",
            "***",
            "src",
            "e",
            "-",
        ]
    ),
    _substrings,
    st.text(min_size=1, max_size=24),
).filter(lambda s: not any(c in s for c in "@\n\r\0") and not s[0].isspace() and s.strip())


@settings(database=None, deadline=None, max_examples=100, suppress_health_check=list(HealthCheck))
@given(
    secret=any_secrets,
    forms=st.sampled_from(
        [
            ("redis://:{}@127.0.0.1:6379", "redis://***:***@127.0.0.1:6379"),
            ("redis://user:{}@127.0.0.1:6379", "redis://***:***@127.0.0.1:6379"),
            ("https://cache.example/c|bearer-token={}", "https://cache.example/c|bearer-token=***"),
        ]
    ),
)
def test_a_secret_is_masked_where_it_is_and_nowhere_else(
    secret: str, forms: tuple[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the secret (a word of tritondev's own keys, paths or JSON syntax included), a run given
    it leaves every other value as it is: `config show` shows the workspace as given (its path holding the
    secret), and masking a document that carries it changes that value and nothing else: the state reads
    back as it was written but for the masked remote."""
    from bootstrap.pipeline.built.state import SetupState

    form, masked_remote = forms
    if "bearer-token" in form:  # ccache ends an attribute at `|`; a token is one word
        assume(not any(c in secret for c in "|'\"") and not any(c.isspace() for c in secret))
    if form.startswith("redis://user:"):  # read as `host:port` on purpose: see redact's docstring
        assume(not re.match(r"\d+(?:$|[/?#]|\s+\S)", secret))
    remote = form.format(secret)
    workspace = f"/nonexistent/{secret.replace('/', '_')}/ws"
    monkeypatch.setenv("TRITONDEV_CCACHE_REMOTE", remote)
    capsys.readouterr()
    code = run_main(["config", "show", "--workspace", workspace, "--json"])
    shown = json.loads(capsys.readouterr().out)
    if code == 0:
        assert shown["workspace"] == os.path.normpath(workspace)  # as given, but for `.` parts (a secret of ".")
        assert shown["settings"]["ccache_remote"]["value"] == masked_remote
    state = _setup_state(remote)
    assert redact(remote) == masked_remote
    expected = _setup_state(masked_remote).to_json()
    assert redact_data(state.to_json()) == expected
    text = json.dumps(state.to_json(), indent=2, sort_keys=True)
    assert redact(text) == json.dumps(expected, indent=2, sort_keys=True)
    assert SetupState.from_json(json.loads(redact(text))) == _setup_state(masked_remote)


def test_a_common_word_as_password_leaves_tritondevs_own_words_alone() -> None:
    """The report: `--ccache-remote 'redis://:triton@host'` once wrote `"***_src"` into state/setup.json."""
    text = '{"kind": "tritondev-setup-state", "triton_src": "/w/src/triton", "remote": "redis://:triton@h:1"}'
    assert (
        redact(text)
        == '{"kind": "tritondev-setup-state", "triton_src": "/w/src/triton", "remote": "redis://***:***@h:1"}'
    )
