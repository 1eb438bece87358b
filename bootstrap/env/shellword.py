"""The value of `export NAME=<word>` as a POSIX shell reads it, or why tritondev will not guess. Pure.

`. env.sh` expands `$HOME/dir`, `"${CUDA_HOME}/bin"` and a leading `~/`; a reader that took the
text literally would pass another value on than the user's shell has. What the shell does is
followed for quotes (single: literal; double: `$NAME`, `${NAME}` and the escapes `\\$ \\` \\" \\\\`),
backslashes, `$NAME`/`${NAME}` (from the environment and the lines above), and `~`/`~/` at the start.
What could differ between shells or run a program is refused (`UnsupportedWord`, which the caller
turns into exit 2 naming the line): command substitution (`$(...)`, backticks), bash's `$'...'`
and `$"..."` quoting, `${NAME:-...}` and
other operators, positional and special parameters (`$1`, `$?`), `~user`, an unquoted expansion whose
value holds a space (bash keeps it whole, dash splits it), and `;`, `&`, `|`, `<`, `>`, `(` or `)`
outside quotes (the shell would read another command).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = frozenset(";&|<>()")
_DOUBLE_ESCAPES = frozenset('$`"\\\n')


class UnsupportedWord(ValueError):
    """The word holds something tritondev does not evaluate the way every shell would."""


def _parameter(raw: str, at: int, environ: Mapping[str, str]) -> tuple[str, int]:
    """The expansion starting at raw[at] == '$': (its value, the index after it)."""
    rest = raw[at + 1 :]
    if rest.startswith("{"):
        close = rest.find("}")
        inner = rest[1:close] if close != -1 else ""
        if close == -1 or not _NAME.fullmatch(inner):
            raise UnsupportedWord(f"`${{{inner or rest[1:20]}` is a parameter operation tritondev does not evaluate")
        return environ.get(inner, ""), at + close + 2
    name = _NAME.match(rest)
    if name is not None:
        return environ.get(name.group(0), ""), at + 1 + name.end()
    if rest[:1] == "(":
        raise UnsupportedWord("`$(` runs a command")
    if rest[:1] in ("'", '"'):
        raise UnsupportedWord(f"`${rest[0]}` quoting is bash's, another shell reads it otherwise")
    if rest[:1] and (rest[0].isdigit() or rest[0] in "@*#?$!-"):
        raise UnsupportedWord(f"`${rest[0]}` is a parameter of the running shell")
    return "$", at + 1


def _tilde(raw: str, environ: Mapping[str, str]) -> tuple[str, int]:
    """A leading `~` or `~/...`: the home folder, as the shell expands it in an assignment."""
    end = raw.find("/")
    login = raw[1 : end if end != -1 else len(raw)]
    if login and not login[0].isspace():
        raise UnsupportedWord(f"`~{login}` names another user's home")
    if "HOME" not in environ:
        raise UnsupportedWord("`~` with HOME unset")
    return environ["HOME"], 1


def _double_quoted(raw: str, at: int, environ: Mapping[str, str]) -> tuple[str, int]:
    out: list[str] = []
    i = at + 1
    while i < len(raw):
        ch = raw[i]
        if ch == '"':
            return "".join(out), i + 1
        if ch == "\\" and i + 1 < len(raw) and raw[i + 1] in _DOUBLE_ESCAPES:
            out.append(raw[i + 1])
            i += 2
        elif ch == "$":
            value, i = _parameter(raw, i, environ)
            out.append(value)
        elif ch == "`":
            raise UnsupportedWord("a backtick runs a command")
        else:
            out.append(ch)
            i += 1
    raise UnsupportedWord("a double quote is not closed")


def expand_word(raw: str, environ: Mapping[str, str]) -> str:
    """The first word of `raw` (what follows `export NAME=`) as the shell assigns it."""
    out: list[str] = []
    i = 0
    if raw.startswith("~"):
        home, i = _tilde(raw, environ)
        out.append(home)
    while i < len(raw):
        ch = raw[i]
        if ch.isspace():
            break
        if ch == "'":
            close = raw.find("'", i + 1)
            if close == -1:
                raise UnsupportedWord("a single quote is not closed")
            out.append(raw[i + 1 : close])
            i = close + 1
        elif ch == '"':
            value, i = _double_quoted(raw, i, environ)
            out.append(value)
        elif ch == "\\":
            if i + 1 >= len(raw):
                raise UnsupportedWord("a backslash ends the line")
            out.append(raw[i + 1])
            i += 2
        elif ch == "$":
            value, i = _parameter(raw, i, environ)
            if any(c.isspace() for c in value):
                raise UnsupportedWord(
                    "an unquoted expansion holds a space (shells split it differently); put it in double quotes"
                )
            out.append(value)
        elif ch == "`":
            raise UnsupportedWord("a backtick runs a command")
        elif ch == "~" and raw[i - 1 : i] == ":":
            raise UnsupportedWord("`:~` is expanded by some shells and not by others; write the folder out")
        elif ch in _OPERATORS:
            raise UnsupportedWord(f"`{ch}` outside quotes starts another command")
        else:
            out.append(ch)
            i += 1
    return "".join(out)
