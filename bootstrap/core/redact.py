"""Keep credentials out of terminals, logs and JSON.

URLs such as redis://user:secret@host or https://token@host carry passwords; every string that
may contain one passes through `redact` before it is shown or written.
"""

from __future__ import annotations

import re

# scheme://[user[:password]@]host — replace the userinfo's password (or a bare token) with ***.
_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^:/@\s]*)(?::(?P<pw>[^@/\s]*))?@")
_QUERY_SECRET = re.compile(r"(?i)([?&](?:password|passwd|token|secret|auth)=)[^&\s]*")


def _userinfo(match: re.Match[str]) -> str:
    scheme, user, pw = match.group("scheme"), match.group("user"), match.group("pw")
    if pw is None:
        # A lone userinfo part (https://TOKEN@host) is usually a token.
        return f"{scheme}***@" if user else f"{scheme}@"
    return f"{scheme}{user}:***@"


def redact(text: str) -> str:
    text = _USERINFO.sub(_userinfo, text)
    return _QUERY_SECRET.sub(r"\1***", text)
