"""Keep credentials out of terminals, logs, JSON documents, journals, state files and crash logs.

One rule masks every byte tritondev writes anywhere (both consoles and the process's own stdout and
stderr, `--json`, logs, every file written through core.writes):

- the userinfo of any `scheme://` URL (https, http, ssh, git, redis, raw+https, ...): all of it, user
  and password (`https://TOKEN:x-oauth-basic@host` carries the token in the user part), as
  `***:***@`; a lone user part (`https://TOKEN@host`) as `***@`; only the plain ssh login `git@`
  stays, as it is no secret. A password may hold anything but a line break and `@`: quotes,
  backslashes, spaces (as it appears quoted by a shell, `repr` or JSON) are masked with it;
- the password of an scp-like ssh address (`user:password@host:path`; its user is an ssh login);
- query parameters whose name says secret (`?token=`, `access_token=`, `private_token=`, `password=`,
  `api_key=`, `sig=`, `X-Amz-Signature=`, ...);
- ccache remote attributes that carry one (`|bearer-token=...`, `|header=Authorization=...`);
- `Authorization: Bearer|Basic|token ...` header values;
- and, wherever they appear, the secrets those rules found in what the user gave this run (the
  command line, the environment, the settings: `remember`), in the forms a shell, `repr`, JSON or
  percent-encoding would give them.

`redact` is idempotent and changes nothing else in the text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from bootstrap.core import run_state

MASK = "***"
_PUBLIC_USERS = frozenset({"git"})  # the ssh login of every hosted git service: not a secret

# Parameter and attribute names that hold a secret (matched case-insensitively, as a whole name
# or as its last part: `access_token`, `X-Amz-Signature`, `client_secret`).
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*?(?:token|secret|passw(?:or)?d|pwd|auth|authorization|key|sig|signature|credential|"
    r"session|cookie)"
)
_URL = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<rest>[^\s'\"<>\\]*)")
_SCP = re.compile(
    r"(?<![\w./:@%+*-])(?P<user>[A-Za-z0-9._%+-]+):(?P<pw>[^@\s/'\"]+)@(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):(?!//)"
)
_QUERY = re.compile(rf"(?i)(?P<head>[?&;]{_SECRET_NAME}=)(?P<value>[^&#\s'\"]*)")
_ATTRIBUTE = re.compile(rf"(?i)(?P<head>\|{_SECRET_NAME}=)(?P<value>[^|\s'\"]*)")
# ccache's bearer-token attribute also where a space, not a `|`, comes before it (a mistyped remote).
_BEARER = re.compile(r"(?i)(?P<head>(?:^|(?<=\s))bearer-token=)(?P<value>[^|\s'\"]*)")
# ccache's `header=NAME=VALUE` attribute: the value (`Bearer TOKEN`) may hold a space.
_HEADER_ATTRIBUTE = re.compile(r"(?i)(?P<head>\|header=)(?P<value>[^|'\"\n]*)")
_HEADER = re.compile(r"(?i)(?P<head>authorization:\s*(?:bearer|basic|token)\s+)(?P<value>[^\s'\"]+)")


# `scheme://user:password@host` where the password holds what ends a plain URL (a quote, a backslash, a
# space: `https://u:p'ss@h` as typed, or as a shell, repr or JSON quotes it). It ends at the first `@`
# before a host; a port (`host:8080/...`) is no password.
_SCHEME = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://")
_LOOSE = re.compile(r"(?P<user>[^\s/?#@:'\"<>\\]*):(?P<pw>(?!\s)[^\n@]{0,256}?)@(?=[\[A-Za-z0-9])")
_PORT = re.compile(r"\d+(?:$|[/?#\s])")
# Literal secrets learnt from this run's input (remember) are this long at least; shorter ones are left
# to the patterns, as masking a common short word everywhere would garble the output.
MIN_KNOWN = 6
# A user part with a password is a login name, except a token's (GitHub's TOKEN:x-oauth-basic form):
# tokens are long, login names rarely this long.
MIN_TOKEN_USER = 20


@dataclass
class _Secrets:
    """What this run learnt to mask (bootstrap.core.run_state)."""

    known: set[str] = field(default_factory=set)  # literal secrets from this run's input (remember)
    # While `remember` runs the patterns: what each masked, as (user, password); a lone user part or a
    # secret value as (it, None).
    collecting: list[list[tuple[str, str | None]]] = field(default_factory=list)


def _secrets() -> _Secrets:
    return run_state.part(_Secrets)


def _note(first: str, second: str | None) -> None:
    collecting = _secrets().collecting
    if collecting and first != MASK and second != MASK:
        collecting[-1].append((first, second))


def _mask_userinfo(userinfo: str) -> str:
    user, colon, password = userinfo.partition(":")
    _note(user, password if colon else None)
    if colon:
        return f"{user if user in _PUBLIC_USERS or user == MASK else MASK}:{MASK}"
    if not user or user == MASK or user in _PUBLIC_USERS:
        return user
    return MASK


def _loose(text: str) -> str:
    """The loose userinfo rule (see _LOOSE), tried at every `scheme://` (overlaps included)."""
    if "://" not in text:
        return text
    out: list[str] = []
    done = 0
    for scheme in _SCHEME.finditer(text):
        if scheme.start() < done:
            continue
        found = _LOOSE.match(text, scheme.end())
        if found is None or _PORT.match(found["pw"]):
            continue
        out += [text[done:scheme.end()], _mask_userinfo(f"{found['user']}:{found['pw']}"), "@"]
        done = found.end()
    return "".join(out) + text[done:] if out else text


def _url(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    end = len(rest)
    for stop in "/?#":
        found = rest.find(stop)
        if found != -1:
            end = min(end, found)
    authority = rest[:end]
    # An unencoded / ? or # in a password (`https://user:pa/ss@host`, `https://u:p@ss/word@host`) ends
    # the authority early. When the part before the host holds a colon that starts no port, there is a
    # password, and the userinfo reaches to the last @ (an @ in a path after real credentials is masked
    # too: more, never less).
    userinfo_part = authority.rpartition("@")[0] if "@" in authority else authority
    if ":" in userinfo_part and "@" in rest[end:] and not userinfo_part.startswith("["):
        if not userinfo_part.split(":", 1)[1].isdigit():
            end = rest.rfind("@")
            authority = rest[:end + 1]
    if "@" not in authority:
        return match.group(0)
    userinfo, _, host = authority.rpartition("@")
    return f"{scheme}{_mask_userinfo(userinfo)}@{host}{rest[len(authority):]}"


def _scp(match: re.Match[str]) -> str:
    _note(match.group("user"), match.group("pw"))
    return f"{match.group('user')}:{MASK}@{match.group('host')}:"


def _value(match: re.Match[str]) -> str:
    _note(match.group("value"), None)
    return match.group("head") + (MASK if match.group("value") else "")


def _patterns(text: str) -> str:
    text = _loose(text)
    text = _URL.sub(_url, text)
    text = _SCP.sub(_scp, text)
    text = _QUERY.sub(_value, text)
    text = _ATTRIBUTE.sub(_value, text)
    text = _BEARER.sub(_value, text)
    text = _HEADER_ATTRIBUTE.sub(_value, text)
    return _HEADER.sub(_value, text)


def redact(text: str) -> str:
    """`text` with every credential of every URL form it holds replaced by ***."""
    if not text:
        return text
    text = _patterns(text)
    for secret in sorted(_secrets().known, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def remember(text: str) -> None:
    """Learn the secrets the patterns find in `text` (an option, a variable, a setting), so that they are
    masked wherever they appear later, in whatever quoting."""
    if not text or ("@" not in text and "=" not in text):
        return
    collecting = _secrets().collecting
    collecting.append([])
    try:
        _patterns(text)
    finally:
        found = collecting.pop()
    for first, second in found:
        if second is None:  # a token as the user part, or a secret parameter's value
            _learn(first)
            continue
        _learn(second)
        if len(first) >= MIN_TOKEN_USER and first not in _PUBLIC_USERS:  # TOKEN:x-oauth-basic
            _learn(first)


def _learn(secret: str) -> None:
    if len(secret) < MIN_KNOWN or MASK in secret:
        return
    for form in (secret, unquote(secret), quote(secret, safe=""), json.dumps(secret)[1:-1],
                 repr(secret)[1:-1], secret.replace("'", "'\"'\"'"), secret.replace("\\", "\\\\")):
        if len(form) >= MIN_KNOWN:
            _secrets().known.add(form)


def forget_all() -> None:
    """Drop what `remember` learnt in this run (a new run forgets it anyway: bootstrap.core.run_state)."""
    _secrets().known.clear()


def redact_data(data: Any) -> Any:
    """A JSON-like value with `redact` applied to every string in it (keys included)."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {redact_data(k): redact_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact_data(v) for v in data]
    return data


def without_credentials(url: str) -> str:
    """`url` as it may be kept on disk (a checkout's .git/config, state/settings.json): no password, no
    token. A `scheme://` URL loses its whole userinfo (an ssh login name is kept: ssh needs it and it is
    no secret) and its secret query parameters; an scp-like address keeps its login, not its password."""
    if redact(url) == url:
        return url
    if "://" not in url:  # user:password@host:path
        login, _, rest = url.partition("@")
        return f"{login.split(':', 1)[0]}@{rest}"
    try:
        parts = urlsplit(url)
        user = parts.username
    except ValueError:
        return redact(url)
    host = parts.netloc.rpartition("@")[2]
    keep_user = parts.scheme.lower() == "ssh" and user and user not in (MASK,)
    netloc = f"{user}@{host}" if keep_user else host
    query = "&".join(q for q in parts.query.split("&") if q and redact(f"?{q}") == f"?{q}")
    return parts._replace(netloc=netloc, query=query).geturl()
