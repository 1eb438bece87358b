"""The distcc setting's parser: distcc's own host syntax (src/hosts.c), what tritondev refuses, and
that no text whatever makes it fail other than with a ValueError (a ConfigError, exit 2, once coerced)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bootstrap.core.errors import ConfigError
from bootstrap.core.settings.distcc_hosts import (
    DEFAULT_PORT,
    LOCAL_SLOTS,
    REMOTE_SLOTS,
    is_off,
    parse_hosts,
    parse_setting,
)
from bootstrap.core.settings.settings import load_settings

SETTINGS = settings(database=None, deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("build1", [("build1", DEFAULT_PORT, REMOTE_SLOTS, ())]),
        ("build1/8,lzo build2/8", [("build1", DEFAULT_PORT, 8, ("lzo",)), ("build2", DEFAULT_PORT, 8, ())]),
        ("127.0.0.1:4000/2", [("127.0.0.1", 4000, 2, ())]),
        ("host/3:4000,lzo,cpp", [("host", 4000, 3, ("lzo", "cpp"))]),  # distcc's older order: LIMIT before PORT
        ("[::1]:4000/6", [("::1", 4000, 6, ())]),
        ("localhost/3 farm-7.example.com", [("localhost", None, 3, ()), ("farm-7.example.com", DEFAULT_PORT, 4, ())]),
        ("localhost a", [("localhost", None, LOCAL_SLOTS, ()), ("a", DEFAULT_PORT, REMOTE_SLOTS, ())]),
        ("localhost:3700", [("localhost", 3700, REMOTE_SLOTS, ())]),  # a distccd on this machine, over TCP
        ("a # the big one\n", [("a", DEFAULT_PORT, REMOTE_SLOTS, ())]),
        # distcc(1) 3.4: OPTION = lzo | cpp | auth[=AUTH_NAME] (the service principal's name, e.g. behind a tunnel)
        ("127.0.0.1:4000/2,auth=build1.example.com", [("127.0.0.1", 4000, 2, ("auth=build1.example.com",))]),
        ("b,auth,lzo", [("b", DEFAULT_PORT, REMOTE_SLOTS, ("auth", "lzo"))]),
    ],
)
def test_hosts_as_distcc_reads_them(text: str, expected: list[tuple[str, int | None, int, tuple[str, ...]]]) -> None:
    hosts = parse_hosts(text)
    assert [(h.host, h.port, h.slots, h.options) for h in hosts.hosts] == expected


def test_keywords_and_the_value_given_to_distcc() -> None:
    hosts = parse_hosts("--randomize a/2  --localslots=3 b:3633/5,lzo --localslots_cpp/9 localhost/1")
    assert hosts.keywords == ("--randomize", "--localslots=3", "--localslots_cpp/9")
    assert hosts.value == "--randomize --localslots=3 --localslots_cpp/9 a/2 b:3633/5,lzo localhost/1"
    assert hosts.slots == 2 + 5 + 1  # localhost's slots count: distcc runs that many compiles here
    assert [h.address for h in hosts.remote] == [f"a:{DEFAULT_PORT}", "b:3633"]


def test_keeping_some_hosts_keeps_localhost_and_the_keywords() -> None:
    hosts = parse_hosts("--randomize a/2 b/3 localhost/1 c/4")
    kept = hosts.keeping([hosts.remote[2]])
    assert kept.value == "--randomize localhost/1 c/4"
    assert kept.slots == 5


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("user@host", "ssh host"),
        ("@host/4", "ssh host"),
        ("+zeroconf", "zeroconf is not supported"),
        ("localhost/4", "no remote host"),
        ("", "no remote host"),
        ("# only a comment", "no remote host"),
        ("a a:3632", "listed twice"),
        ("a:0", "port"),
        ("a:65536", "port"),
        ("a:http", "port"),
        ("a/0", "1 to 4096"),
        ("a/99999", "1 to 4096"),
        ("a/x", "expected /N"),
        ("a/2/3", "given twice"),
        ("a,gzip", "unknown option"),
        ("a,auth=", "not a host name"),
        ("a,auth=x;y", "not a host name"),
        ("a,lzo=1", "unknown option"),
        ("a,cpp", "needs compression"),
        ("a;rm", "not a host name"),
        ("-a", "not a host name"),
        ("a..b/2:4000:5000", "unexpected"),
        ("[fe80::1", "IPv6"),
        ("[]:4000", "IPv6"),
        ("--localslots", "expected /N"),
        ("--jobs=4 a", "unknown keyword"),
        ("localhost/2x a", "localhost takes only"),
    ],
)
def test_what_is_refused_and_why(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_hosts(text)


def test_none_turns_it_off_and_a_bad_value_is_exit_2(tmp_path: Path) -> None:
    assert is_off(None) and is_off(" None ") and not is_off("a")
    assert parse_setting("  none ") == "none"
    assert parse_setting(" a/2  b ") == "a/2  b"
    env = {"TRITONDEV_WORKSPACE": str(tmp_path / "ws")}
    assert load_settings({"distcc": "a/2 b/3"}, env).distcc == "a/2 b/3"
    assert load_settings({}, {**env, "TRITONDEV_DISTCC": "h:4000/2"}).source_of("distcc") == "env:TRITONDEV_DISTCC"
    with pytest.raises(ConfigError, match=r"invalid value 'u@h' for 'distcc' in --distcc: 'u@h' is an ssh host"):
        load_settings({"distcc": "u@h"}, env)


_PIECES = st.sampled_from(
    [
        "a",
        "b.example",
        "127.0.0.1",
        "localhost",
        "[::1]",
        ":",
        "/",
        "/4",
        ":3632",
        ",lzo",
        ",cpp",
        ",zstd",
        "@",
        "#",
        " ",
        "\t",
        "--randomize",
        "--localslots",
        "=2",
        "+zeroconf",
        "0",
        "99999",
        "]",
        "[",
        "\n",
        "é",
        "x",
    ]
)


@SETTINGS
@given(st.lists(_PIECES, max_size=12).map("".join) | st.text(max_size=60))
def test_any_text_parses_or_is_a_value_error(text: str) -> None:
    try:
        hosts = parse_hosts(text)
    except ValueError:
        return
    assert hosts.remote and hosts.slots >= len(hosts.hosts)
    # What distcc gets is the tokens as written, and reading it again gives the same hosts.
    assert parse_hosts(hosts.value) == hosts
    for host in hosts.hosts:
        assert host.token in text and " " not in host.token and 1 <= host.slots <= 4096
