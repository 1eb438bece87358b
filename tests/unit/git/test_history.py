"""What a checkout's history fetch asks for, and how credentials reach git: only through the
environment of the command (git's GIT_CONFIG_COUNT), never its argv or a config file."""

from __future__ import annotations

from bootstrap.git.history import blobless_fetch, branch_for, credential_env

PIN = "0123456789abcdef0123456789abcdef01234567"


def test_the_branch_is_named_after_the_pin() -> None:
    assert branch_for(PIN) == "tritondev/01234567"


def test_a_url_without_credentials_needs_no_environment() -> None:
    assert credential_env("https://github.com/triton-lang/triton.git") == {}
    assert credential_env("/srv/mirror/triton.git") == {}


def test_credentials_are_given_as_an_insteadof_of_the_stored_url() -> None:
    url = "https://user:s3cret@git.example/triton.git"
    env = credential_env(url)
    assert env == {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.{url}.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://git.example/triton.git",
    }


def test_the_blobless_fetch_names_origin_every_branch_and_the_pin() -> None:
    args = blobless_fetch(PIN, f"refs/tritondev/pins/{PIN}")
    assert args[:4] == ["fetch", "--filter=blob:none", "--no-write-fetch-head", "origin"]
    assert "+refs/heads/*:refs/remotes/origin/*" in args and f"+{PIN}:refs/tritondev/pins/{PIN}" in args
    assert not any("s3cret" in a or "://" in a for a in args)
