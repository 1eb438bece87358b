"""Keep credentials out of terminals, logs, JSON documents, journals and crash logs.

Repository URLs, download URLs and ccache remotes may carry secrets in several places; every string
that may hold one passes through `redact` before it is shown or written:

- the userinfo of any `scheme://` URL (https, http, ssh, git, redis, raw+https, ...): a password
  becomes `user:***@`, a lone user part (`https://TOKEN@host`, the usual form of a token) `***@`;
  only the plain ssh login `git@` stays, as it is no secret;
- the password of an scp-like ssh address (`user:password@host:path`; its user is an ssh login);
- query parameters whose name says secret (`?token=`, `access_token=`, `private_token=`, `password=`,
  `api_key=`, `sig=`, `X-Amz-Signature=`, ...);
- ccache remote attributes that carry one (`|bearer-token=...`, `|header=Authorization=...`);
- `Authorization: Bearer|Basic|token ...` header values.

`redact` is idempotent and changes nothing else in the text.
"""

from __future__ import annotations

import re
from typing import Any

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


def _mask_userinfo(userinfo: str) -> str:
    user, colon, _password = userinfo.partition(":")
    if colon:
        return f"{user}:{MASK}"
    if not user or user == MASK or user in _PUBLIC_USERS:
        return user
    return MASK


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
    return f"{match.group('user')}:{MASK}@{match.group('host')}:"


def _value(match: re.Match[str]) -> str:
    return match.group("head") + (MASK if match.group("value") else "")


def redact(text: str) -> str:
    """`text` with every credential of every URL form it holds replaced by ***."""
    if not text:
        return text
    text = _URL.sub(_url, text)
    text = _SCP.sub(_scp, text)
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
