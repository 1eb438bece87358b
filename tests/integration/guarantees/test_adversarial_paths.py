"""Adversarial paths: every file tritondev writes or reads may be something else on disk.

The lock, a step log, the journal, the state files, `env.sh`, a checkout's place in `src/`, a replay's
output: each replaced by a link to the user's file or folder, a dangling link, a folder, a FIFO or a file
of the wrong kind. Each row of CASES runs through the same check as test_adversarial.py: the documented
exit code (2, naming the path, for anything tritondev would have to write through), one line and a fix
(or one JSON document), no traceback, no hang, and nothing changed on disk: not the workspace, not the
user's real target venv, not one byte of the user's files the links point at.
"""

from __future__ import annotations

import pytest

from tests.conftest import Cli
from tests.integration.guarantees.conftest import TruncatingServer
from tests.integration.guarantees.hostile import (
    dangling_link,
    env_sh,
    fifo_at,
    file_at,
    folder_at,
    journal_elsewhere,
    link_to_my_file,
    link_to_my_folder,
    partial_link,
    replay_input_link,
    src_link,
)
from tests.integration.guarantees.scene import (
    LOCKED,
    USAGE,
    Case,
    Scene,
    both,
    env,
    ir_dump,
    run_case,
    stale_cache_in_env,
)

PURGE = ("purge", "--workspace", "{ws}", "--python", "{py}")
DOCTOR_FIX = ("doctor", "--workspace", "{ws}", "--python", "{py}", "--fix")  # with a stale cache to clear
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
LINK, FIFO, FOLDER = "is a symbolic link", "is a FIFO", "is a folder"


def journal_of_target(s: Scene) -> None:
    import json

    run = {
        "id": "2026-01-01T00:00:00Z-1",
        "status": "done",
        "target": {"executable": str(s.py)},
        "removed": [
            {"name": "never-installed-here", "version": "3.5.0", "source": {"kind": "index"}, "installed_at": 1.0}
        ],
    }
    (s.ws / "state" / "purge-journal.json").write_text(json.dumps({"format": 1, "runs": [run]}))


CASES: list[Case] = [
    # the workspace lock: never truncated through a link, never opened as a FIFO or a folder
    Case("lock-link-to-my-file-purge", PURGE, USAGE, LINK, link_to_my_file("state/lock")),
    Case(
        "lock-link-to-my-file-setup-json", (*SETUP_T, "--json"), USAGE, LINK, link_to_my_file("state/lock"), json=True
    ),
    Case(
        "lock-dangling-link-doctor-fix", DOCTOR_FIX, USAGE, LINK, both(stale_cache_in_env, dangling_link("state/lock"))
    ),
    Case("lock-fifo-purge", PURGE, USAGE, FIFO, fifo_at("state/lock")),
    Case("lock-fifo-setup", SETUP_T, USAGE, FIFO, fifo_at("state/lock")),
    Case("lock-folder-setup", SETUP_T, USAGE, FOLDER, folder_at("state/lock")),
    Case("lock-folder-purge-json", (*PURGE, "--json"), USAGE, FOLDER, folder_at("state/lock"), json=True),
    # a step log: never written through a link, never opened as a FIFO (purge held both locks forever)
    Case("log-fifo-purge", PURGE, USAGE, FIFO, fifo_at("logs/purge-probe.log")),
    Case("log-link-to-my-file-purge", PURGE, USAGE, LINK, link_to_my_file("logs/purge-probe.log")),
    Case("log-dangling-link-purge", PURGE, USAGE, LINK, dangling_link("logs/purge-probe.log")),
    Case("log-folder-purge", PURGE, USAGE, FOLDER, folder_at("logs/purge-probe.log")),
    Case(
        "log-fifo-restore",
        ("purge", "--workspace", "{ws}", "--restore"),
        USAGE,
        FIFO,
        both(journal_of_target, fifo_at("logs/purge-restore.log")),
    ),
    # the workspace's own folders: a link out of the workspace is not written into
    Case("logs-folder-link-to-my-folder-purge", PURGE, USAGE, "logs is a symbolic link", link_to_my_folder("logs")),
    Case(
        "state-folder-link-to-my-folder-doctor-fix",
        DOCTOR_FIX,
        USAGE,
        "state is a symbolic link",
        both(stale_cache_in_env, link_to_my_folder("state")),
    ),
    Case("state-folder-is-a-fifo-purge", PURGE, USAGE, "state is a FIFO", fifo_at("state")),
    # the purge journal and the state files
    Case("journal-link-to-a-journal-elsewhere", PURGE, USAGE, LINK, journal_elsewhere),
    Case("journal-is-a-folder", PURGE, USAGE, "not a purge journal", folder_at("state/purge-journal.json")),
    Case(
        "settings-json-is-a-folder",
        ("config", "show", "--workspace", "{ws}"),
        USAGE,
        "not a regular file",
        folder_at("state/settings.json"),
    ),
    Case(
        "settings-json-wrong-type",
        ("config", "show", "--workspace", "{ws}", "--json"),
        USAGE,
        "build_type",
        file_at("state/settings.json", '{"settings": {"build_type": 5}}'),
        json=True,
    ),
    Case(
        "settings-json-link-to-my-garbage",
        ("pins", "--workspace", "{ws}"),
        USAGE,
        "damaged",
        link_to_my_file("state/settings.json", "not json at all\n"),
    ),
    Case(
        "setup-state-is-a-list",
        ("build", "--workspace", "{ws}"),
        USAGE,
        "setup.json",
        file_at("state/setup.json", "[1, 2, 3]"),
    ),
    # the bisect journal: read by reset and resume before anything else, a FIFO there is refused, not waited on
    Case(
        "bisect-journal-fifo-reset",
        ("bisect", "reset", "--workspace", "{ws}"),
        USAGE,
        "not a regular file",
        fifo_at("state/bisect.json"),
    ),
    Case(
        "bisect-journal-folder-reset-json",
        ("bisect", "reset", "--workspace", "{ws}", "--json"),
        USAGE,
        "not a regular file",
        folder_at("state/bisect.json"),
        json=True,
    ),
    # a checkout's place: a link is refused before anything is fetched, a .partial of the user's is kept
    Case("src-triton-link-to-an-empty-folder", SETUP_T, USAGE, LINK, src_link("triton", "empty folder")),
    Case("src-triton-dangling-link", SETUP_T, USAGE, LINK, src_link("triton", "nowhere")),
    Case("src-triton-link-to-a-file-json", (*SETUP_T, "--json"), USAGE, LINK, src_link("triton", "file"), json=True),
    Case("src-partial-is-a-link-to-my-clone", SETUP_T, LOCKED, "not a clone tritondev started", partial_link),
    # env.sh is read as the shell reads it, or refused: never passed on differently
    Case(
        "env-file-command-substitution-run",
        ("run", "--workspace", "{ws}", "--", "true"),
        USAGE,
        "runs a command",
        env_sh("export TRITON_CACHE_DIR=$(mktemp -d)\n"),
    ),
    Case("env-file-backtick-env", ("env", "--workspace", "{ws}"), USAGE, "backtick", env_sh("export A=`id -u`\n")),
    Case(
        "env-file-parameter-default-cache",
        ("cache", "ls", "--workspace", "{ws}"),
        USAGE,
        "parameter operation",
        env_sh("export TRITON_CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/triton\n"),
    ),
    Case(
        "env-file-unquoted-space-cache-json",
        ("cache", "ls", "--workspace", "{ws}", "--json"),
        USAGE,
        "holds a space",
        both(env(MY_SPACED="a b"), env_sh("export A=$MY_SPACED/x\n")),
        json=True,
    ),
    Case(
        "env-file-other-users-home-env",
        ("env", "--workspace", "{ws}"),
        USAGE,
        "another user's home",
        env_sh("export A=~root/x\n"),
    ),
    Case(
        "env-file-positional-parameter-env",
        ("env", "--workspace", "{ws}"),
        USAGE,
        "parameter of the running",
        env_sh("export A=$1/x\n"),
    ),
    Case(
        "env-file-is-a-folder-cache",
        ("cache", "ls", "--workspace", "{ws}"),
        USAGE,
        "cannot be read",
        folder_at("env.sh"),
    ),
    # a replay's outputs: a link in --out is in the way, never written through
    Case(
        "opt-input-is-a-link-to-my-file",
        ("opt", "tritongpu-coalesce", "--dump", "{dump}", "--workspace", "{ws}", "--out", "{out}", "--dry-run"),
        USAGE,
        "in the way",
        both(ir_dump, replay_input_link),
    ),
]


def test_at_least_thirty_path_cases() -> None:
    assert len(CASES) >= 30
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_adversarial_path(case: Case, scene: Scene, cli: Cli, truncating_server: TruncatingServer) -> None:
    run_case(case, scene, cli, truncating_server.base_url)
