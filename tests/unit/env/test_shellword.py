"""env.sh values are read as `. env.sh` reads them, or refused (exit 2): never passed on differently.
(tests/integration/guarantees/test_env_file_shell.py holds the same words against sh and bash.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from bootstrap.core.errors import ConfigError
from bootstrap.env.envfile import read_env_file
from bootstrap.env.shellword import UnsupportedWord, expand_word

ENV = {"HOME": "/home/me", "CUDA": "/usr/local/cuda", "SPACED": "a b"}


@pytest.mark.parametrize(
    ("word", "value"),
    [
        ("$HOME/dir", "/home/me/dir"),
        ("${HOME}/dir", "/home/me/dir"),
        ('"$CUDA/bin"', "/usr/local/cuda/bin"),
        ('"${SPACED}/x"', "a b/x"),
        ("'$HOME'", "$HOME"),
        ('"\\$HOME"', "$HOME"),
        ("\\$HOME", "$HOME"),
        ("~/x", "/home/me/x"),
        ("~", "/home/me"),
        ("a~b", "a~b"),
        ("$UNSET/x", "/x"),
        ("$", "$"),
        ("$/x", "$/x"),
        ("/opt/x # a comment", "/opt/x"),
        ("\"a\"'b'c", "abc"),
        ("", ""),
    ],
)
def test_words_the_shell_expands(word: str, value: str) -> None:
    assert expand_word(word, ENV) == value


@pytest.mark.parametrize(
    ("word", "why"),
    [
        ("$(id -u)", "runs a command"),
        ("`id -u`", "backtick"),
        ('"$(id)"', "runs a command"),
        ("${HOME:-/x}", "parameter operation"),
        ("${#HOME}", "parameter operation"),
        ("$1", "parameter of the running shell"),
        ("$?", "parameter of the running shell"),
        ("~root/x", "another user's home"),
        ("$SPACED", "holds a space"),
        ("a;b", "another command"),
        ("a|b", "another command"),
        ("/x:~/y", "some shells"),
        ("'unclosed", "not closed"),
        ('"unclosed', "not closed"),
    ],
)
def test_words_tritondev_will_not_guess(word: str, why: str) -> None:
    with pytest.raises(UnsupportedWord, match=why):
        expand_word(word, ENV)


def test_the_env_file_reads_earlier_lines_and_names_a_line_it_refuses(tmp_path: Path) -> None:
    env_sh = tmp_path / "env.sh"
    env_sh.write_text('# mine\nexport ROOT=$HOME/tools\nexport BIN="$ROOT/bin"\n')
    assert read_env_file(env_sh, ENV) == {"ROOT": "/home/me/tools", "BIN": "/home/me/tools/bin"}
    env_sh.write_text("# mine\nexport A=$(mktemp)\n")
    with pytest.raises(ConfigError, match="line 2"):
        read_env_file(env_sh, ENV)
