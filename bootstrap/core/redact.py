"""Keep credentials out of terminals, logs, JSON documents, journals, state files and crash logs.

One rule masks every byte tritondev writes anywhere (both consoles and the process's own stdout and
stderr, `--json`, logs, every file written through core.writes):

- the userinfo of any `scheme://` URL (https, http, ssh, git, redis, raw+https, ...): all of it, user
  and password (`https://TOKEN:x-oauth-basic@host` carries the token in the user part), as
  `***:***@`; a lone user part (`https://TOKEN@host`) as `***@`; only the plain ssh login `git@`
  stays, as it is no secret. A password may hold anything but a line break and `@`: quotes,
  backslashes, spaces (as it appears quoted by a shell, `repr` or JSON) are masked with it. One
  reading is ambiguous and goes to the URL: after a user name, digits and then `/ ? #` or a space and
  more text (`user:8080/...@`, `user:8080 more@`) read as `host:port`, as in `https://host:8080/@scope`
  (a URL needs such a password percent-encoded anyway);
- the password of an scp-like ssh address (`user:password@host:path`; its user is an ssh login);
- query parameters whose name says secret (`?token=`, `access_token=`, `private_token=`, `password=`,
  `api_key=`, `sig=`, `X-Amz-Signature=`, ...);
- ccache remote attributes that carry one (`|bearer-token=...`, `|header=Authorization=...`);
- `Authorization: Bearer|Basic|token ...` header values.

A secret is masked where it is: inside the URL, parameter, attribute or header that carries it, in any
quoting of that value. Its text is never searched for anywhere else: a password `triton` masks the
userinfo of `redis://:triton@host`, and leaves tritondev's own `triton_src`, `src/triton` and every other
word of the document alone (masking a learnt word wherever it appeared rewrote state files into ones
tritondev could no longer read).

`redact` is a pure function of its text: idempotent, and it changes nothing outside those values.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

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
# before a host; a port (`host:8080/...`, `host:8080 and more text@...`) is no password, but digits and
# only spaces before the `@` are one (`redis://user:0 @host`).
_SCHEME = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://")
_LOOSE = re.compile(r"(?P<user>[^\s/?#@:'\"<>\\]*):(?P<pw>(?!\s)[^\n@]{0,256}?)@(?=[\[A-Za-z0-9])")
_PORT = re.compile(r"\d+(?:$|[/?#]|\s+\S)")


def _mask_userinfo(userinfo: str) -> str:
    user, colon, _password = userinfo.partition(":")
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
        # With no host before it (`redis://:0/@host`) there is no port: the digits are a password.
        if found is None or (found["user"] and _PORT.match(found["pw"])):
            continue
        out += [text[done : scheme.end()], _mask_userinfo(f"{found['user']}:{found['pw']}"), "@"]
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
        if userinfo_part.startswith(":") or not userinfo_part.split(":", 1)[1].isdigit():
            end = rest.rfind("@")
            authority = rest[: end + 1]
    if "@" not in authority:
        return match.group(0)
    userinfo, _, host = authority.rpartition("@")
    return f"{scheme}{_mask_userinfo(userinfo)}@{host}{rest[len(authority) :]}"


def _scp(match: re.Match[str]) -> str:
    return f"{match.group('user')}:{MASK}@{match.group('host')}:"


def _value(match: re.Match[str]) -> str:
    return match.group("head") + (MASK if match.group("value") else "")


def redact(text: str) -> str:
    """`text` with the credential of every URL, parameter, attribute and header it holds replaced by ***;
    every other character as it was."""
    if not text:
        return text
    text = _loose(text)
    text = _URL.sub(_url, text)
    return _mask_parameters(_SCP.sub(_scp, text))


def _mask_parameters(text: str) -> str:
    """The secret values of query parameters, attributes and headers in `text` masked."""
    text = _QUERY.sub(_value, text)
    text = _ATTRIBUTE.sub(_value, text)
    text = _BEARER.sub(_value, text)
    text = _HEADER_ATTRIBUTE.sub(_value, text)
    return _HEADER.sub(_value, text)


def redact_data(data: Any) -> Any:
    """A JSON-like value with `redact` applied to every string in it (keys included)."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {redact_data(k): redact_data(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [redact_data(v) for v in data]
    return data


_LOGIN = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=%-]+")


def without_credentials(url: str) -> str:
    """`url` as it may be kept on disk (a checkout's .git/config, state/settings.json): no password, no
    token. A `scheme://` URL loses its whole userinfo (an ssh login name is kept: ssh needs it and it is
    no secret) and its secret query parameters; an scp-like address keeps its login, not its password."""
    if redact(url) == url:
        return url
    kept, login = _userinfo_and_secret_parameters_removed(url)
    # What those rules do not take out (a token in a fragment, a password in text urlsplit reads as no URL)
    # stays masked, so the result holds no secret and comes back unchanged. Only an ssh login that was kept
    # on purpose is not masked again.
    if login:
        return _mask_parameters(kept)
    return redact(kept)


def _userinfo_and_secret_parameters_removed(url: str) -> tuple[str, bool]:
    """The URL without its userinfo (an ssh login aside) and its secret query parameters, and whether an
    ssh login was kept."""
    if "://" not in url:
        if "@" not in url:
            return url, False
        login, _, rest = url.partition("@")  # user:password@host:path
        return f"{login.split(':', 1)[0]}@{rest}", False
    try:
        parts = urlsplit(url)
        user = parts.username
    except ValueError:
        return url, False
    host = parts.netloc.rpartition("@")[2]
    # A login is kept only when it is one (RFC 3986 userinfo characters): `ssh://[::1]@h` has none.
    keep_user = parts.scheme.lower() == "ssh" and user and user != MASK and _LOGIN.fullmatch(user) is not None
    netloc = f"{user}@{host}" if keep_user else host
    query = "&".join(q for q in parts.query.split("&") if q and redact(f"?{q}") == f"?{q}")
    return parts._replace(netloc=netloc, query=query).geturl(), bool(keep_user)
