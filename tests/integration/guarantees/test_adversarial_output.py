"""Adversarial output: credentials in every form and quoting, terminals that cannot show every character
or report no width, JSON that Python's json would let through, reading commands that must not write, and
deletions whose set a crafted name must not widen.

CASES: bad input, checked like test_adversarial.py (exit code, one line and a fix or one JSON document, no
traceback, nothing changed, and a secret in no output and no log).
KEEPS: commands that succeed (or report findings) over hostile input; each row says what must hold
afterwards, and every file of the user's the row names must be byte for byte as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.integration.guarantees.conftest import TruncatingServer
from tests.integration.guarantees.hostile import (
    broken_tritonclient,
    env_sh,
    file_at,
    nan_cache_entry,
    stale_git_index,
)
from tests.integration.guarantees.scene import (
    EXTERNAL,
    USAGE,
    Case,
    Prepare,
    Scene,
    both,
    cache_dir,
    env,
    run_case,
    toml,
)
from tests.support.snapshot import diff, snapshot

SECRET = "Qz9-t0ken-S3cret"
PINS = ("pins", "--workspace", "{ws}", "--torch-ref", "v2.5.0")
CLOSED = "127.0.0.1:{closed}/pytorch.git"
NON_ASCII = "/opt/пайтон 日本/bin/python"


def url(userinfo: str) -> str:
    return f"http://{userinfo}@{CLOSED}"


CASES: list[Case] = [
    # GitHub's token form and passwords holding what ends a plain URL: masked in output and logs
    Case(
        "url-token-x-oauth-basic",
        (*PINS, "--pytorch-url", url(f"{SECRET}:x-oauth-basic")),
        EXTERNAL,
        "127.0.0.1",
        hidden=SECRET,
    ),
    Case(
        "url-token-x-oauth-basic-json",
        (*PINS, "--pytorch-url", url(f"{SECRET}:x-oauth-basic"), "--json"),
        EXTERNAL,
        "127.0.0.1",
        json=True,
        hidden=SECRET,
    ),
    Case(
        "url-password-single-quote",
        (*PINS, "--pytorch-url", url(f"u:p'{SECRET}")),
        EXTERNAL,
        "127.0.0.1",
        hidden=SECRET,
    ),
    Case(
        "url-password-double-quote-json",
        (*PINS, "--pytorch-url", url(f'u:p"{SECRET}'), "--json"),
        EXTERNAL,
        "127.0.0.1",
        json=True,
        hidden=SECRET,
    ),
    Case(
        "url-password-backslash", (*PINS, "--pytorch-url", url(f"u:p\\{SECRET}")), EXTERNAL, "127.0.0.1", hidden=SECRET
    ),
    Case(
        "url-password-space-json",
        (*PINS, "--pytorch-url", url(f"u:p {SECRET}"), "--json"),
        USAGE,
        "whitespace",
        json=True,
        hidden=SECRET,
    ),
    Case(
        "url-password-all-of-them",
        (*PINS, "--pytorch-url", url(f"u:'\"\\ {SECRET}")),
        USAGE,
        "whitespace",
        hidden=SECRET,
    ),
    Case(
        "url-password-quote-in-toml",
        ("pins", "--workspace", "{ws}"),
        USAGE,
        "not a valid URL",
        toml(f'triton_url = "https://u:p\'{SECRET}@[::1/x.git"\n'),
        hidden=SECRET,
    ),
    Case(
        "url-password-space-in-env-json",
        ("pins", "--workspace", "{ws}", "--json"),
        USAGE,
        "whitespace",
        env(TRITONDEV_PYTORCH_URL=f"https://u:p {SECRET}@[::1/x.git"),
        json=True,
        hidden=SECRET,
    ),
    Case(
        "option-error-quoted-secret-json",
        ("config", "show", "--workspace", "{ws}", "--no-such-option", f'https://u:p"{SECRET}@h/x', "--json"),
        USAGE,
        "No such option",
        json=True,
        hidden=SECRET,
    ),
    Case(
        "ccache-remote-password-with-quote",
        (
            "setup",
            "--workspace",
            "{ws}",
            "--python",
            "{py}",
            "--mirror",
            "{mirror}",
            "--triton-commit",
            "{T}",
            "--ccache-remote",
            f"ftp://u:p'{SECRET}@cache.example/x",
        ),
        USAGE,
        "unsupported ccache remote URL",
        hidden=SECRET,
    ),
    Case(
        "llvm-url-token-user-unreachable",
        (
            "setup",
            "--workspace",
            "{ws}",
            "--python",
            "{py}",
            "--mirror",
            "{mirror}",
            "--triton-commit",
            "{T}",
            "--llvm-url",
            f"https://{SECRET}:x-oauth-basic@h:99999/llvm.git",
        ),
        USAGE,
        "Port out of range",
        hidden=SECRET,
    ),
    # terminals: a width of 0, an encoding that cannot hold the text: the error is still said, never exit 70
    Case(
        "columns-zero-error-still-shown",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "control character",
        both(env(COLUMNS="0"), toml('python = "/usr/bin/py\\u0000thon"\n')),
    ),
    Case(
        "columns-negative-error-still-shown",
        ("pins", "--workspace", "{ws}"),
        USAGE,
        "expected a string",
        both(env(COLUMNS="-5", LINES="0"), toml("triton_url = 3\n")),
    ),
    Case(
        "latin1-terminal-error-with-non-ascii",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "unknown key",
        both(env(PYTHONIOENCODING="ISO-8859-1"), toml(f'pyhton = "{NON_ASCII}"\n')),
    ),
    Case(
        "ascii-terminal-error-with-non-ascii-json",
        ("config", "show", "--workspace", "{ws}", "--json"),
        USAGE,
        "unknown key",
        both(env(LC_ALL="C", PYTHONIOENCODING="ascii"), toml(f'pyhton = "{NON_ASCII}"\n')),
        json=True,
    ),
    Case(
        "c-locale-env-file-not-utf8",
        ("env", "--workspace", "{ws}"),
        USAGE,
        "not UTF-8",
        both(env(LC_ALL="C", LANG="C"), file_at("env.sh", b"export A='/opt/\xff\xfe'\n")),
    ),
]


@dataclass(frozen=True)
class Keep:
    id: str
    argv: tuple[str, ...]
    codes: tuple[int, ...]  # the exit codes it may end with (doctor reports findings with 1)
    prepare: Prepare
    holds: Callable[[Scene, subprocess.CompletedProcess[str]], None]
    timeout: float = 300


def _kept_and_reported(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    assert Path(s.fields["tritonclient"]).is_dir() and (Path(s.fields["tritonclient"]) / "RECORD").is_file()
    assert "is kept" in proc.stderr, proc.stderr[-2000:]


def _no_secret_in_journal(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    journal = (s.ws / "state" / "purge-journal.json").read_text()
    assert SECRET not in journal and SECRET not in proc.stdout + proc.stderr
    assert "***" in journal, journal


def _index_untouched(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    assert Path(s.fields["index"]).read_bytes() == bytes.fromhex(s.fields["index_bytes"])


def _prints_the_table(word: str) -> Callable[[Scene, subprocess.CompletedProcess[str]], None]:
    def holds(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
        assert word in proc.stdout, (proc.stdout, proc.stderr)
        assert not list((s.ws / "logs").glob("crash-*")), "a reading command wrote a crash log"

    return holds


def _strict_json(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in --json output")

    data = json.loads(proc.stdout, parse_constant=refuse)
    assert data, proc.stdout


def _expanded_as_the_shell_does(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    shell = subprocess.run(
        ["sh", "-c", '. "$1"; printf %s "$MY_DIR|$MY_TOOL|$MY_HOME"', "sh", str(s.ws / "env.sh")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **s.env},
    )
    assert proc.stdout == shell.stdout, (proc.stdout, shell.stdout)
    assert "$" not in proc.stdout and "~" not in proc.stdout


def with_index_bytes(s: Scene) -> None:
    stale_git_index(s)
    s.fields["index_bytes"] = Path(s.fields["index"]).read_bytes().hex()


def pip_index_with_secret(s: Scene) -> None:
    """pip's index settings carry credentials, and triton came from an index (no direct_url.json)."""
    from tests.integration.guarantees.hostile import site_packages

    for direct in site_packages(s).glob("triton-*.dist-info/direct_url.json"):
        direct.unlink()
    s.env["PIP_INDEX_URL"] = f"https://u:p'{SECRET}@127.0.0.1:9/simple"
    s.env["PIP_EXTRA_INDEX_URL"] = f"https://{SECRET}:x-oauth-basic@127.0.0.1:9/extra https://x/simple"


PRINT_VARS = ("run", "--workspace", "{ws}", "--", "sh", "-c", 'printf %s "$MY_DIR|$MY_TOOL|$MY_HOME"')
ENV_SH = 'export MY_DIR=$HOME/dir\nexport MY_TOOL="${HOME}/tools with space"\nexport MY_HOME=~/x\n'

KEEPS: list[Keep] = [
    Keep(
        "purge-keeps-a-broken-tritonclient-metadata-folder",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        (0,),
        broken_tritonclient,
        _kept_and_reported,
    ),
    Keep(
        "purge-dry-run-reports-what-it-keeps",
        ("purge", "--workspace", "{ws}", "--python", "{py}", "--dry-run", "--json"),
        (0,),
        broken_tritonclient,
        lambda s, p: _kept_json(s, p),
    ),
    Keep(
        "purge-journal-never-holds-pip-index-credentials",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        (0,),
        pip_index_with_secret,
        _no_secret_in_journal,
    ),
    Keep(
        "doctor-leaves-a-checkouts-index-alone",
        ("doctor", "--workspace", "{ws}", "--python", "{py}"),
        (0, 1),
        with_index_bytes,
        _index_untouched,
    ),
    Keep(
        "doctor-fix-dry-run-leaves-a-checkouts-index-alone",
        ("doctor", "--workspace", "{ws}", "--python", "{py}", "--fix", "--dry-run"),
        (0, 1),
        with_index_bytes,
        _index_untouched,
    ),
    Keep(
        "config-show-on-a-latin1-terminal",
        ("config", "show", "--workspace", "{ws}"),
        (0,),
        both(env(PYTHONIOENCODING="ISO-8859-1"), toml(f'python = "{NON_ASCII}"\n')),
        _prints_the_table("python"),
    ),
    Keep(
        "config-show-in-the-c-locale",
        ("config", "show", "--workspace", "{ws}"),
        (0,),
        both(env(LC_ALL="C", LANG="C", PYTHONIOENCODING="ascii"), toml(f'python = "{NON_ASCII}"\n')),
        _prints_the_table("python"),
    ),
    Keep(
        "config-show-columns-zero",
        ("config", "show", "--workspace", "{ws}"),
        (0,),
        env(COLUMNS="0"),
        _prints_the_table("build_type"),
    ),
    Keep(
        "cache-ls-columns-zero",
        ("cache", "ls", "--workspace", "{ws}", "--dir", "{cache}"),
        (0,),
        both(cache_dir, env(COLUMNS="0")),
        _prints_the_table("add_kernel"),
    ),
    Keep(
        "cache-ls-json-nan-and-infinity",
        ("cache", "ls", "--workspace", "{ws}", "--dir", "{cache}", "--json"),
        (0,),
        nan_cache_entry,
        _strict_json,
    ),
    Keep("env-file-expanded-as-the-shell-does", PRINT_VARS, (0,), env_sh(ENV_SH), _expanded_as_the_shell_does),
    Keep(
        "config-show-masks-quoted-passwords",
        ("config", "show", "--workspace", "{ws}"),
        (0,),
        env(
            TRITONDEV_CCACHE_REMOTE=f"redis://u:p'\"\\ {SECRET}@cache:6379",
            TRITONDEV_TRITON_URL=f"https://{SECRET}0123456789:x-oauth-basic@github.com/o/triton.git",
        ),
        lambda s, p: _secret_not_shown(p),
    ),
    Keep(
        "config-show-json-masks-quoted-passwords",
        ("config", "show", "--workspace", "{ws}", "--json"),
        (0,),
        env(
            TRITONDEV_CCACHE_REMOTE=f"redis://u:p'\"\\ {SECRET}@cache:6379",
            TRITONDEV_LLVM_URL=f"https://u:{SECRET}'x@github.com/llvm/llvm-project.git",
        ),
        lambda s, p: _secret_not_shown(p),
    ),
]


def _secret_not_shown(proc: subprocess.CompletedProcess[str]) -> None:
    assert SECRET not in proc.stdout + proc.stderr and "***" in proc.stdout, proc.stdout[-2000:]


def _kept_json(s: Scene, proc: subprocess.CompletedProcess[str]) -> None:
    scan = json.loads(proc.stdout)["scan"]
    assert s.fields["tritonclient"] in [k["path"] for k in scan["kept_not_proven"]]
    assert s.fields["tritonclient"] not in scan["leftovers"]


def test_at_least_thirty_output_cases() -> None:
    assert len(CASES) + len(KEEPS) >= 25
    ids = [c.id for c in CASES] + [k.id for k in KEEPS]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_adversarial_output(case: Case, scene: Scene, cli: Cli, truncating_server: TruncatingServer) -> None:
    run_case(case, scene, cli, truncating_server.base_url)


@pytest.mark.parametrize("keep", KEEPS, ids=[k.id for k in KEEPS])
def test_what_must_hold(keep: Keep, scene: Scene, cli: Cli) -> None:
    keep.prepare(scene)
    before = snapshot(*scene.roots) if scene.roots else {}
    proc = cli(*[part.format(**scene.fields) for part in keep.argv], env=scene.env, cwd=scene.tmp, timeout=keep.timeout)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in keep.codes, f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
    assert diff(before, snapshot(*scene.roots) if scene.roots else {}) == []
    keep.holds(scene, proc)
