"""Fixtures for the ccache remote tests: a real redis-server started on 127.0.0.1 for this package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.ccache_remote.redis import RedisServer


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"), unix_socket=True).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def password_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The classic set-up: `requirepass`, reached as redis://:PASSWORD@127.0.0.1:PORT (an empty user)."""
    server = RedisServer(tmp_path_factory.mktemp("redis-requirepass"), requirepass=True).start()
    yield server
    server.stop()


@pytest.fixture
def stopped_redis(tmp_path_factory: pytest.TempPathFactory) -> RedisServer:
    """A server that was running and has been shut down: its port refuses connections."""
    server = RedisServer(tmp_path_factory.mktemp("redis-stopped")).start()
    server.stop()
    return server
