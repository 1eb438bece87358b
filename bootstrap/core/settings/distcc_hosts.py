"""The `distcc` setting: a host list in distcc's own DISTCC_HOSTS syntax, parsed and checked.

The grammar is distcc's (src/hosts.c): hosts separated by blanks, `#` to the end of the line a
comment, the keywords `--randomize`, `--localslots=N` and `--localslots_cpp=N`, and per host

    localhost[/LIMIT]                                   this machine (2 slots unless LIMIT)
    HOST[:PORT][/LIMIT][,OPTION...]                     a distccd over TCP (4 slots, port 3632)
    HOST[/LIMIT][:PORT][,OPTION...]                     the same, in distcc's older order
    [IPV6][:PORT][/LIMIT][,OPTION...]

with the options lzo, zstd, cpp (pump mode; needs lzo) and auth[=AUTH_NAME] (GSS-API; AUTH_NAME the
service principal's host name, distcc(1) 3.4 "HOST SPECIFICATIONS"). Each token reaches distcc
exactly as written. Refused here, with the reason: ssh hosts (`[USER]@HOST`: every compile would pay an
ssh login, and a host that prompts for a password cannot be proven), `+zeroconf` (the hosts are not
known before the build, so none can be proven), a host named twice, a list with no remote host, and
anything distcc itself would reject. The word `none` turns distcc off (so that a remembered host list
can be dropped). Pure: nothing here starts a process or touches a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

OFF = "none"
DEFAULT_PORT = 3632  # distcc's DISTCC_DEFAULT_PORT
REMOTE_SLOTS = 4  # distcc's default limit per TCP host
LOCAL_SLOTS = 2  # ... and for localhost
MAX_SLOTS = 4096  # no host runs more; a bigger number is a typo
OPTIONS = ("lzo", "zstd", "cpp", "auth")
KEYWORDS = ("--randomize", "--localslots_cpp", "--localslots")
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?$")  # hostname or IPv4
_IPV6 = re.compile(r"^[0-9A-Fa-f:.]+$")
_LIMIT = {"/": re.compile(r"^/(\d+)"), "/=": re.compile(r"^[/=](\d+)")}  # hosts: /N; keywords: /N or =N


@dataclass(frozen=True)
class HostSpec:
    """One host of the list: the token as written (what distcc gets) and what it says."""

    token: str
    host: str  # "localhost" for this machine
    port: int | None  # None for localhost
    slots: int
    options: tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        return self.port is None

    @property
    def address(self) -> str:
        """host:port (IPv6 in brackets), how it is named in messages."""
        if self.port is None:
            return self.host
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"{shown}:{self.port}"

    def to_json(self) -> dict[str, object]:
        return {"token": self.token, "address": self.address, "slots": self.slots, "options": list(self.options)}


@dataclass(frozen=True)
class DistccHosts:
    hosts: tuple[HostSpec, ...]
    keywords: tuple[str, ...] = ()  # --randomize, --localslots=N, --localslots_cpp=N, as written

    @property
    def remote(self) -> tuple[HostSpec, ...]:
        return tuple(h for h in self.hosts if not h.local)

    @property
    def slots(self) -> int:
        """How many compiles distcc runs at once over these hosts (localhost's slots included)."""
        return sum(h.slots for h in self.hosts)

    def keeping(self, kept: Iterable[HostSpec]) -> DistccHosts:
        """The same list with only `kept` of its remote hosts (localhost stays)."""
        tokens = {h.token for h in kept}
        return DistccHosts(tuple(h for h in self.hosts if h.local or h.token in tokens), self.keywords)

    @property
    def value(self) -> str:
        """DISTCC_HOSTS for distcc: the keywords and hosts as written, one space apart."""
        return " ".join([*self.keywords, *(h.token for h in self.hosts)])


def is_off(text: str | None) -> bool:
    return text is None or text.strip().lower() == OFF


def parse_hosts(text: str) -> DistccHosts:
    """The host list; ValueError saying which token is wrong and why."""
    hosts: list[HostSpec] = []
    keywords: list[str] = []
    for token in _tokens(text):
        if token.startswith("--"):
            keywords.append(_keyword(token))
            continue
        if token == "+zeroconf":
            raise ValueError(
                "+zeroconf is not supported: hosts found at build time cannot be proven before it; name each host"
            )
        if "@" in token:
            raise ValueError(
                f"{token!r} is an ssh host: not supported; run distccd on it and name it HOST[:PORT][/LIMIT]"
            )
        hosts.append(_local(token) if token == "localhost" or token.startswith("localhost/") else _tcp(token))
    seen: dict[str, str] = {}
    for host in hosts:
        if host.address in seen:
            raise ValueError(f"{host.address} is listed twice ({seen[host.address]!r} and {host.token!r})")
        seen[host.address] = host.token
    if not any(not h.local for h in hosts):
        raise ValueError("names no remote host (HOST[:PORT][/LIMIT]): distcc would compile everything here")
    return DistccHosts(tuple(hosts), tuple(keywords))


def parse_setting(text: str) -> str:
    """The setting's value as given (stripped), once it parses; `none` (off) as is."""
    text = text.strip()
    if not is_off(text):
        parse_hosts(text)
    return text


def _tokens(text: str) -> list[str]:
    """Blank-separated tokens; `#` starts a comment to the end of the line (as distcc reads it)."""
    tokens: list[str] = []
    for line in text.splitlines():
        tokens += line.split("#", 1)[0].split()
    return tokens


def _keyword(token: str) -> str:
    if token == "--randomize":
        return token
    for name in KEYWORDS[1:]:
        if token.startswith(name):
            _limit(token[len(name) :], token, required=True, marks="/=")
            return token
    raise ValueError(f"unknown keyword {token!r} (distcc knows --randomize, --localslots=N, --localslots_cpp=N)")


def _limit(rest: str, token: str, *, required: bool = False, marks: str = "/") -> tuple[int | None, str]:
    """A /LIMIT (a keyword's also =LIMIT) at the start of `rest`: its value and what follows."""
    match = _LIMIT[marks].match(rest)
    if match is None:
        if required or (rest[:1] and rest[:1] in marks):
            raise ValueError(f"{token!r}: expected /N with N a whole number of jobs")
        return None, rest
    value = int(match.group(1))
    if not 1 <= value <= MAX_SLOTS:
        raise ValueError(f"{token!r}: a host takes 1 to {MAX_SLOTS} jobs, not {value}")
    if required and match.end() != len(rest):
        raise ValueError(f"{token!r}: unexpected {rest[match.end() :]!r} after the number")
    return value, rest[match.end() :]


def _local(token: str) -> HostSpec:
    slots, rest = _limit(token[len("localhost") :], token)
    if rest:
        raise ValueError(f"{token!r}: localhost takes only /LIMIT")
    return HostSpec(token, "localhost", None, slots or LOCAL_SLOTS)


def _tcp(token: str) -> HostSpec:
    host, rest = _host_part(token)
    slots, rest = _limit(rest, token)
    port = DEFAULT_PORT
    if rest.startswith(":"):
        digits = re.match(r"\d+", rest[1:])
        if digits is None or not 1 <= int(digits.group(0)) <= 65535:
            raise ValueError(f"{token!r}: the port must be a number from 1 to 65535")
        port, rest = int(digits.group(0)), rest[1 + digits.end() :]
    later, rest = _limit(rest, token)
    if slots is not None and later is not None:
        raise ValueError(f"{token!r}: /LIMIT given twice")
    options = _options(rest, token)
    return HostSpec(token, host, port, slots or later or REMOTE_SLOTS, options)


def _host_part(token: str) -> tuple[str, str]:
    if token.startswith("["):
        host, bracket, rest = token[1:].partition("]")
        if not bracket or not host or not _IPV6.match(host) or ":" not in host:
            raise ValueError(f"{token!r}: an IPv6 address is written [ADDRESS]")
        return host, rest
    host = re.split(r"[/:,]", token, maxsplit=1)[0]
    if not _NAME.match(host):
        raise ValueError(f"{token!r}: {host!r} is not a host name or address")
    return host, token[len(host) :]


def _options(rest: str, token: str) -> tuple[str, ...]:
    if not rest:
        return ()
    if not rest.startswith(","):
        raise ValueError(f"{token!r}: unexpected {rest!r} (distcc's form is HOST[:PORT][/LIMIT][,OPTION])")
    options = tuple(rest[1:].split(","))
    for option in options:
        name, equals, value = option.partition("=")
        if name == "auth" and equals:
            if not _NAME.match(value):
                raise ValueError(f"{token!r}: {value!r} is not a host name (distcc's form is auth=AUTH_NAME)")
        elif option not in OPTIONS:
            raise ValueError(
                f"{token!r}: unknown option {option!r} (distcc's are {', '.join(OPTIONS)}, auth=AUTH_NAME)"
            )
    if "cpp" in options and "lzo" not in options:
        raise ValueError(f"{token!r}: pump mode (,cpp) needs compression (,lzo), as distcc says")
    return options
