"""Validation of commit ids, refs and URLs: every bad value is rejected before git sees it."""

from __future__ import annotations

import pytest

from bootstrap.core.errors import ConfigError, ExitCode, MismatchError
from bootstrap.git.refs import parse_pin_file, validate_commit, validate_raw_base, validate_ref, validate_repo_url

SHA = "cf34004b8a67d290a962da166f5aa2fc66751326"  # PyTorch 2.5's Triton pin (triton-build-facts 2.1)


def test_pin_file_accepts_one_sha_with_newline() -> None:
    assert parse_pin_file(SHA + "\n", "triton.txt") == SHA
    assert parse_pin_file(SHA.upper() + "\r\n\n", "triton.txt") == SHA


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("\n  \n", "empty"),
        (SHA[:39] + "\n", "39 hex digits"),
        (SHA + "0", "41 hex digits"),
        (SHA + " # pinned by bot\n", "extra text"),
        (SHA + "\n" + SHA + "\n", "extra text"),
        ("--upload-pack=touch /tmp/x", "option"),
        ("../../.ci/docker/ci_commit_pins/triton.txt", "not hexadecimal"),
    ],
)
def test_pin_file_rejects_malformed_content(text: str, says: str) -> None:
    with pytest.raises(MismatchError) as info:
        parse_pin_file(text, "triton.txt at v2.5.1")
    assert says in info.value.message
    assert "triton.txt at v2.5.1" in info.value.message
    assert info.value.exit_code == ExitCode.MISMATCH


def test_commit_option_is_strict() -> None:
    assert validate_commit(" " + SHA.upper()) == SHA
    for bad in ("", SHA[:7], SHA + "x", "--upload-pack=x", "HEAD"):
        with pytest.raises(ConfigError) as info:
            validate_commit(bad, "--triton-commit")
        assert "--triton-commit" in info.value.message
        assert info.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize(
    "ref", ["main", "v2.5.1", "v2.6.0-rc3", "release/2.5", "viable/strict", SHA, "ciflow/trunk/12"]
)
def test_refs_people_use_are_accepted(ref: str) -> None:
    assert validate_ref(ref) == ref


@pytest.mark.parametrize(
    "ref",
    ["--upload-pack=x", "-x", "", "a..b", "main/", "v1.lock", "a b", "ref;rm -rf", "x@{1}", "a//b", ".hidden", "$(id)"],
)
def test_dangerous_or_malformed_refs_are_rejected(ref: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_ref(ref, "--torch-ref")
    assert "--torch-ref" in info.value.message


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://github.com/pytorch/pytorch.git", "git"),
        ("ssh://git@github.com/pytorch/pytorch.git", "git"),
        ("git@github.com:pytorch/pytorch.git", "git"),
        ("git://127.0.0.1:9418/pytorch.git", "git"),
        ("http://127.0.0.1:8080/pytorch.git", "git"),
        ("/srv/mirrors/pytorch.git", "path"),
        ("file:///srv/mirrors/pytorch.git", "path"),
        ("relative/dir", "path"),
        ("raw+https://raw.example.org/pytorch/pytorch", "raw"),
        ("raw+http://localhost:8000/pytorch", "raw"),
    ],
)
def test_repository_urls_accepted(url: str, kind: str) -> None:
    assert validate_repo_url(url).kind == kind


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ext::sh -c touch% /tmp/pwned", "ext::"),
        ("https://example.org/a b", "whitespace"),
        ("ext::sh%20-c%20id", "ext::"),
        ("fd::17", "ext::"),
        ("--upload-pack=touch /tmp/x", "option"),
        ("-oProxyCommand=x", "option"),
        ("http://example.org/pytorch.git", "plain http"),
        ("ftp://example.org/pytorch.git", "transport 'ftp'"),
        ("ssh://-oProxyCommand=x/repo", "host"),
        ("", "empty"),
        ("raw+ftp://example.org/x", "https only"),
        ("raw+http://example.org/x", "127.0.0.1"),
        ("raw+https://user:pw@example.org/x", "credentials"),
    ],
)
def test_repository_urls_rejected(url: str, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_repo_url(url, "--pytorch-url")
    assert says in info.value.message
    assert "--pytorch-url" in info.value.message


def test_github_urls_know_their_slug() -> None:
    assert validate_repo_url("https://github.com/pytorch/pytorch.git").github_slug == "pytorch/pytorch"
    assert validate_repo_url("https://github.com/pytorch/pytorch").github_slug == "pytorch/pytorch"
    assert validate_repo_url("https://gitlab.com/pytorch/pytorch").github_slug is None
    assert validate_raw_base("https://raw.githubusercontent.com/pytorch/pytorch/").url.endswith("/pytorch")
