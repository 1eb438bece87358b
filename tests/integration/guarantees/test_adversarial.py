"""Adversarial input for every promise of the README's Guarantees: files that are not what their name
says (FIFOs, links that loop, folders), outside data of the wrong shape (probe answers, journals,
RECORDs, cache files, env.sh, tritondev.toml), values that make no sense, credentials in every URL
form, crafted metadata that would make a deletion reach beyond its set, and concurrent purges.

Each bad input is one row of CASES and runs through the same check as test_bad_input.py: the
documented exit code, one line and a fix (or one JSON document), no traceback, nothing changed on
disk (the workspace, the user's real target venv, every folder the case names), no hang (a short
timeout), and, where the input holds a secret, the secret in no output and no log.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.integration.guarantees.conftest import ODD, TruncatingServer
from tests.integration.guarantees.scene import (
    EXTERNAL,
    LOCKED,
    USAGE,
    Case,
    Prepare,
    Scene,
    both,
    cache_dir,
    env,
    pyproject,
    run_case,
    toml,
)

SECRET = "Qz9-s3cret-tok3n"
SETUP_T = (
    "setup",
    "--workspace",
    "{ws}",
    "--python",
    "{py}",
    "--mirror",
    "{mirror}",
    "--jobs",
    "2",
    "--triton-commit",
    "{T}",
)
PINS = ("pins", "--workspace", "{ws}", "--torch-ref", "v2.5.0")
KEY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRST"


# -- prepare functions --------------------------------------------------------------------------------


def toml_bytes(data: bytes) -> Prepare:
    def prepare(s: Scene) -> None:
        (s.ws / "tritondev.toml").write_bytes(data)

    return prepare


def toml_link_loop(s: Scene) -> None:
    (s.ws / "tritondev.toml").symlink_to(s.ws / "tritondev.toml")


def fifo(relative: str) -> Prepare:
    """A FIFO where tritondev reads a file: reading it would block forever."""

    def prepare(s: Scene) -> None:
        path = s.ws / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)

    return prepare


def env_file(text: bytes) -> Prepare:
    def prepare(s: Scene) -> None:
        (s.ws / "env.sh").write_bytes(text)

    return prepare


def probe_answer(answer: dict[str, Any]) -> Prepare:
    """A `--python` that runs and answers the interpreter probe with valid JSON of the wrong shape."""

    def prepare(s: Scene) -> None:
        fake = s.tmp / f"odd python {ODD}"
        fake.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(answer)}\nEOF\n")
        fake.chmod(0o755)
        s.fields["oddpy"] = str(fake)
        s.roots.append(fake)

    return prepare


GOOD_ANSWER = {
    "executable": "/v/bin/python",
    "version": "3.12.3",
    "prefix": "/v",
    "base_prefix": "/usr",
    "purelib": "/v/lib/python3.12/site-packages",
    "platlib": "/v/lib/python3.12/site-packages",
    "include": "/usr/include/python3.12",
    "scripts": "/v/bin",
}


def journal(data: object) -> Prepare:
    def prepare(s: Scene) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        (s.ws / "state" / "purge-journal.json").write_text(text, encoding="utf-8")

    return prepare


def run_with(**fields: object) -> dict[str, Any]:
    """A journal run as purge writes it, with `fields` changed."""
    run: dict[str, object] = {
        "id": "2026-01-01T00:00:00Z-1",
        "status": "done",
        "target": {"executable": "/v/bin/python"},
        "removed": [{"name": "triton", "version": "3.5.0", "source": {"kind": "index"}, "installed_at": 1.0}],
    }
    run.update(fields)
    return {"format": 1, "runs": [run]}


def journal_of_target(s: Scene) -> None:
    """A well-formed journal whose last purge was of the scene's target (for a restore)."""
    data = run_with()
    data["runs"][0]["target"] = {"executable": str(s.py)}
    (s.ws / "state" / "purge-journal.json").write_text(json.dumps(data), encoding="utf-8")


def site_packages(s: Scene) -> Path:
    (found,) = (s.venv / "lib").glob("python3*/site-packages")
    return found


def triton_metadata(s: Scene) -> Path:
    (found,) = site_packages(s).glob("triton-*.dist-info")
    return found


def record_lists(*entries: str) -> Prepare:
    """The target's triton RECORD also lists `entries` (a broken or crafted RECORD)."""

    def prepare(s: Scene) -> None:
        record = triton_metadata(s) / "RECORD"
        record.write_text(record.read_text() + "".join(f"{e.format(**s.fields)},,\n" for e in entries))

    return prepare


def console_script(name: str) -> Prepare:
    def prepare(s: Scene) -> None:
        (triton_metadata(s) / "entry_points.txt").write_text(f"[console_scripts]\n{name} = triton.x:main\n")

    return prepare


def link_out_of_triton(s: Scene) -> None:
    """triton/src is a link to the user's folder, and RECORD lists a file through it."""
    mine = s.tmp / f"my checkout {ODD}"
    mine.mkdir()
    (mine / "keep.py").write_text("my work\n")
    s.roots.append(mine)
    (site_packages(s) / "triton" / "src").symlink_to(mine)
    record_lists("triton/src/keep.py")(s)


def record_is_a_fifo(s: Scene) -> None:
    record = triton_metadata(s) / "RECORD"
    record.unlink()
    os.mkfifo(record)


def hold_environment(s: Scene) -> None:
    """Another tritondev purging the same environment from another workspace (its flock on site-packages)."""
    held = _Held(os.open(site_packages(s), os.O_RDONLY | os.O_DIRECTORY))
    s.keep.append(held)
    fcntl.flock(held.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class _Held:
    """An open folder whose flock the scene releases (closes) after the case."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def close(self) -> None:
        os.close(self.fd)


def checkout_at(label: str) -> Prepare:
    """A full Triton clone in the workspace, detached at a commit of the world's main branch."""

    def prepare(s: Scene) -> None:
        dest = s.ws / "src" / "triton"
        subprocess.run(["git", "clone", "-q", str(s.world.bare["triton"]), str(dest)], check=True)
        subprocess.run(
            ["git", "-C", str(dest), "checkout", "-q", "--detach", s.world.triton_commits[label]], check=True
        )

    return prepare


def ignored_file_the_pin_tracks(s: Scene) -> None:
    """The user keeps their own setup.py at the root of a checkout of an older (python-dir) Triton, out
    of git through .git/info/exclude; the pinned commit tracks setup.py there."""
    checkout_at("python-dir")(s)
    dest = s.ws / "src" / "triton"
    assert not (dest / "setup.py").exists()
    (dest / "setup.py").write_text("# my own build script\n")
    with (dest / ".git" / "info" / "exclude").open("a") as fh:
        fh.write("/setup.py\n")


def partial_not_ours(s: Scene) -> None:
    partial = s.ws / "src" / "triton.partial"
    partial.mkdir(parents=True)
    (partial / "notes.txt").write_text("mine, not a clone\n")


def cache_with_fifo_root(s: Scene) -> None:
    os.mkfifo(s.tmp / "cache fifo")
    s.fields["cachefifo"] = str(s.tmp / "cache fifo")


# -- the table ------------------------------------------------------------------------------------------

CASES: list[Case] = [
    # tritondev.toml: not a file, not UTF-8, too deep, values that make no sense
    Case(
        "toml-not-utf8",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "not UTF-8",
        toml_bytes(b"\xff\xfe build_type = 'Debug'\n"),
    ),
    Case(
        "toml-nested-too-deeply",
        ("config", "show", "--workspace", "{ws}", "--json"),
        USAGE,
        "too deeply",
        toml_bytes(b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
        json=True,
    ),
    Case("toml-link-loop", ("pins", "--workspace", "{ws}"), USAGE, "symbolic links", toml_link_loop),
    Case(
        "toml-is-a-fifo", ("config", "show", "--workspace", "{ws}"), USAGE, "not a regular file", fifo("tritondev.toml")
    ),
    Case(
        "pyproject-tool-tritondev-not-a-table",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "must be a table",
        pyproject('[project]\nname = "x"\n[tool]\ntritondev = "Debug"\n'),
    ),
    Case(
        "toml-jobs-astronomical",
        ("config", "show", "--workspace", "{ws}", "--json"),
        USAGE,
        "at most 4096",
        toml("jobs = 100000000000000000000000000000\n"),
        json=True,
    ),
    Case("option-jobs-astronomical", (*SETUP_T[:7], "--jobs", "100000000000000000000"), USAGE, "at most 4096"),
    Case(
        "env-link-jobs-huge",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "at most 4096",
        env(TRITONDEV_LINK_JOBS="99999"),
    ),
    Case(
        "toml-nul-in-a-path",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "control character",
        toml('python = "/usr/bin/py\\u0000thon"\n'),
    ),
    Case("toml-url-is-a-number", ("pins", "--workspace", "{ws}"), USAGE, "expected a string", toml("triton_url = 3\n")),
    Case(
        "toml-bool-is-a-string",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "true or false",
        toml('ccache = "perhaps"\n'),
    ),
    Case(
        "docker-uid-beyond-any-id",
        ("docker", "build", "--workspace", "{ws}", "--uid", "99999999999", "--dry-run"),
        USAGE,
        "UID/GID",
    ),
    # URLs: malformed, unsupported, or carrying credentials (never shown, never logged)
    Case(
        "url-unbalanced-ipv6",
        (*PINS, "--triton-url", f"https://user:{SECRET}@[::1/x.git", "--json"),
        USAGE,
        "not a valid URL",
        json=True,
        hidden=SECRET,
    ),
    Case("url-file-without-path", (*PINS, "--pytorch-url", "file://HOST"), USAGE, "absolute path"),
    Case("url-port-out-of-range", (*SETUP_T, "--llvm-url", "https://h:99999/llvm.git"), USAGE, "Port out of range"),
    Case(
        "url-raw-with-credentials",
        (*PINS, "--pytorch-url", f"raw+https://u:{SECRET}@example.com/raw"),
        USAGE,
        "no credentials",
        hidden=SECRET,
    ),
    Case(
        "url-unsupported-with-token",
        (*PINS, "--pytorch-url", f"ftp://{SECRET}@example.com/p.git"),
        USAGE,
        "ftp",
        hidden=SECRET,
    ),
    Case(
        "url-token-query-unreachable",
        (
            "pins",
            "--workspace",
            "{ws}",
            "--torch-ref",
            "v2.5.0",
            "--pytorch-url",
            f"git://127.0.0.1:{{closed}}/pytorch.git?access_token={SECRET}",
        ),
        EXTERNAL,
        "127.0.0.1",
        hidden=SECRET,
    ),
    Case(
        "url-password-unreachable-json",
        (
            "pins",
            "--workspace",
            "{ws}",
            "--torch-ref",
            "v2.5.0",
            "--pytorch-url",
            f"http://user:{SECRET}@127.0.0.1:{{closed}}/pytorch.git",
            "--json",
        ),
        EXTERNAL,
        "127.0.0.1",
        json=True,
        hidden=SECRET,
    ),
    Case(
        "ccache-remote-token-unsupported",
        (*SETUP_T, "--ccache-remote", f"ftp://cache.example/x|bearer-token={SECRET}"),
        USAGE,
        "unsupported ccache remote URL",
        hidden=SECRET,
    ),
    Case(
        "option-error-with-token",
        ("config", "show", "--workspace", "{ws}", "--no-such-option", f"https://{SECRET}@h/x", "--json"),
        USAGE,
        "No such option",
        json=True,
        hidden=SECRET,
    ),
    # the target interpreter's answer: valid JSON of the wrong shape
    Case(
        "probe-answer-list-prefix",
        ("purge", "--workspace", "{ws}", "--python", "{oddpy}", "--json"),
        USAGE,
        "not a working Python",
        probe_answer({**GOOD_ANSWER, "prefix": ["/v"]}),
        json=True,
    ),
    Case(
        "probe-answer-nul-path",
        ("verify", "--workspace", "{ws}", "--python", "{oddpy}"),
        USAGE,
        "not a working Python",
        probe_answer({**GOOD_ANSWER, "purelib": "/v/\u0000lib"}),
    ),
    Case(
        "probe-answer-relative-paths",
        ("cache", "ls", "--workspace", "{ws}", "--python", "{oddpy}", "--dir", "{cache}"),
        USAGE,
        "not a working Python",
        both(cache_dir, probe_answer({**GOOD_ANSWER, "scripts": "bin", "version": "three"})),
    ),
    # the purge journal: any shape, any file
    Case(
        "journal-target-not-an-object",
        ("purge", "--workspace", "{ws}", "--restore", "--json"),
        USAGE,
        "'target' is list, not an object",
        journal(run_with(target=["/v/bin/python"])),
        json=True,
    ),
    Case(
        "journal-name-is-an-option",
        ("purge", "--workspace", "{ws}", "--restore"),
        USAGE,
        "not a distribution name",
        journal(
            run_with(
                removed=[
                    {"name": "--index-url=https://evil.example/simple", "version": "1", "source": {"kind": "index"}}
                ]
            )
        ),
    ),
    Case(
        "journal-removed-not-a-list",
        ("purge", "--workspace", "{ws}", "--restore", "--json"),
        USAGE,
        "'removed' is dict, not list",
        journal(run_with(removed={"triton": "3.5.0"})),
        json=True,
    ),
    Case(
        "journal-runs-not-a-list",
        ("purge", "--workspace", "{ws}", "--restore"),
        USAGE,
        "not a purge journal",
        journal({"format": 1, "runs": {"a": 1}}),
    ),
    Case(
        "journal-is-a-fifo",
        ("purge", "--workspace", "{ws}", "--restore"),
        USAGE,
        "not a purge journal",
        fifo("state/purge-journal.json"),
    ),
    Case(
        "journal-installed-at-text",
        ("purge", "--workspace", "{ws}", "--restore"),
        USAGE,
        "installed_at",
        journal(run_with(removed=[{"name": "triton", "version": "1", "installed_at": "yesterday"}])),
    ),
    # the workspace env file and state files: malformed or not files
    Case(
        "env-file-unclosed-quote-cache",
        ("cache", "ls", "--workspace", "{ws}"),
        USAGE,
        "malformed line 2",
        env_file(b"# mine\nexport TRITON_CACHE_DIR='/data/cache\n"),
    ),
    Case(
        "env-file-not-utf8-env",
        ("env", "--workspace", "{ws}"),
        USAGE,
        "not UTF-8",
        env_file(b"export TRITON_PTXAS_PATH=/opt/\xff\xfe/ptxas\n"),
    ),
    Case(
        "env-file-fifo-run", ("run", "--workspace", "{ws}", "--", "true"), USAGE, "not a regular file", fifo("env.sh")
    ),
    Case(
        "env-file-malformed-json",
        ("cache", "ls", "--workspace", "{ws}", "--json"),
        USAGE,
        "malformed line",
        env_file(b'export A="unclosed\n'),
    ),
    Case(
        "state-file-is-a-fifo", ("build", "--workspace", "{ws}"), USAGE, "not a regular file", fifo("state/setup.json")
    ),
    # the kernel cache folder named by the user
    Case(
        "cache-dir-is-a-fifo",
        ("cache", "ls", "--workspace", "{ws}", "--dir", "{cachefifo}"),
        USAGE,
        "not a folder",
        cache_with_fifo_root,
    ),
    # purge: RECORDs that would make pip delete what is not Triton's (exit 6, nothing removed)
    Case(
        "record-lists-another-distribution",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        LOCKED,
        "unrelated_dist-1.0.dist-info lists it too",
        record_lists("unrelated/__init__.py"),
    ),
    Case(
        "record-climbs-out",
        ("purge", "--workspace", "{ws}", "--python", "{py}", "--json"),
        LOCKED,
        "not triton's",
        record_lists("../../../pyvenv.cfg"),
        json=True,
    ),
    Case(
        "record-absolute-path",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        LOCKED,
        "/etc/hostname",
        record_lists("/etc/hostname"),
    ),
    Case(
        "record-lists-the-interpreter",
        ("purge", "--workspace", "{ws}", "--python", "{py}", "--dry-run"),
        LOCKED,
        "bin/python",
        record_lists("../../../bin/python"),
    ),
    Case(
        "entry-point-named-python",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        LOCKED,
        "console script python",
        console_script("python"),
    ),
    Case(
        "record-through-a-link",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        LOCKED,
        "symbolic link",
        link_out_of_triton,
    ),
    Case(
        "record-is-a-fifo", ("purge", "--workspace", "{ws}", "--python", "{py}"), USAGE, "no RECORD", record_is_a_fifo
    ),
    # one purge or restore per environment, whichever workspace asks
    Case(
        "purge-environment-held",
        ("purge", "--workspace", "{ws}", "--python", "{py}"),
        LOCKED,
        "being changed by another tritondev (PID",
        hold_environment,
    ),
    Case(
        "restore-environment-held",
        ("purge", "--workspace", "{ws}", "--restore", "--json"),
        LOCKED,
        "being changed by another tritondev (PID",
        both(journal_of_target, hold_environment),
        json=True,
    ),
    # checkouts: local work git would replace
    Case(
        "checkout-ignored-file-the-pin-tracks",
        SETUP_T,
        LOCKED,
        "would overwrite ignored files",
        ignored_file_the_pin_tracks,
    ),
    Case("checkout-partial-folder-not-ours", SETUP_T, LOCKED, "not a clone tritondev started", partial_not_ours),
]


def test_at_least_forty_adversarial_cases() -> None:
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_adversarial_input(case: Case, scene: Scene, cli: Cli, truncating_server: TruncatingServer) -> None:
    run_case(case, scene, cli, truncating_server.base_url)
