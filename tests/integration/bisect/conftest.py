"""The bisect tests' world: tests.world.bisect_world's fixture, for every module here."""

from tests.world.bisect_world import bisect_world

__all__ = ["bisect_world"]
