"""A property over env.sh lines: whatever `export X=<word>` tritondev reads, it reads as the shells do.
Hypothesis builds words from quotes, escapes, expansions and tildes; a word tritondev accepts must give
the value that `. env.sh` gives in sh (dash here) and in bash; any other word is refused (exit 2)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.env.shellword import UnsupportedWord, expand_word

ENV = {"HOME": "/home/me é", "CUDA": "/usr/local/cuda", "EMPTY": "", "PATH": "/usr/bin:/bin"}
PIECES = [
    "a",
    "/",
    "-",
    ".",
    "é",
    "x y",
    "$HOME",
    "${CUDA}",
    "$EMPTY",
    "$UNSET",
    "~",
    "~/",
    ":",
    "=",
    "$",
    "\\$",
    "\\\\",
    '\\"',
    "'",
    '"',
    "'lit $HOME'",
    '"dq $HOME ${CUDA}"',
    '"\\$ \\\\ \\" \\`"',
    "#",
    "*",
]
words = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)
SHELLS = [s for s in ("sh", "bash") if shutil.which(s)]


def shell_value(shell: str, env_file: Path) -> str | None:
    proc = subprocess.run(
        [shell, "-c", '. "$1" && printf %s "${X-unset}"', shell, str(env_file)],
        capture_output=True,
        env=ENV,
        timeout=300,
    )
    return proc.stdout.decode("utf-8", "surrogateescape") if proc.returncode == 0 and not proc.stderr else None


@pytest.mark.skipif(not SHELLS, reason="no sh or bash here")
@settings(database=None, deadline=None, max_examples=400, suppress_health_check=list(HealthCheck))
@given(word=words)
def test_a_word_tritondev_reads_is_what_the_shells_read(word: str) -> None:
    try:
        ours = expand_word(word, ENV)
    except UnsupportedWord:
        return
    with tempfile.TemporaryDirectory() as tmp:
        env_file = Path(tmp) / "env.sh"
        env_file.write_text(f"export X={word}\n", encoding="utf-8")
        for shell in SHELLS:
            theirs = shell_value(shell, env_file)
            assert theirs is None or theirs == ours, (shell, word, theirs, ours)
