"""isort:skip_file"""
# The version of the installed build: "X.Y.Z+git<sha8>" for a build of a commit, "X.Y.Z" for a
# build of a release branch (written at build time by CMake; see setup.py's get_git_version_suffix).
from ._build_info import version as __version__
from ._C import libtriton

from . import language

__all__ = ["__version__", "language", "llvm_commit", "compile_vector_add"]


def llvm_commit() -> str:
    """The LLVM commit libtriton was compiled against."""
    return libtriton.llvm_commit()


def compile_vector_add(block_size: int = 1024, num_warps: int = 4, target: str = "nvidia") -> dict:
    """Compile the built-in vector-add kernel; returns its ttir, ttgir and llir."""
    return libtriton.compile_vector_add(block_size=block_size, num_warps=num_warps, target=target)
