"""The test world: real miniature llvm-project, Triton and PyTorch git repositories (see README.md)."""

from tests.world.world import PinnedRef, World, build_world

__all__ = ["PinnedRef", "World", "build_world"]
