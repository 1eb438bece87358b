"""isort:skip_file"""
# The version of the installed build: "X.Y.Z+git<sha8>" for a build of a commit, "X.Y.Z" for a
# build of a release branch (written by setup.py; see its get_git_version_suffix).
from ._version import version as __version__
from ._C import libtriton

from . import language

__all__ = ["__version__", "language", "llvm_commit", "llvm_linked", "compile_vector_add"]


def llvm_commit() -> str:
    """The LLVM commit libtriton was compiled against."""
    return libtriton.llvm_commit()


def llvm_linked() -> dict:
    """Test world only: the LLVM libraries libtriton was linked with (revision and build folder), which
    differ from llvm_commit() when the headers of one LLVM met the libraries of another."""
    revision, build_tree = libtriton.llvm_linked()
    return {"revision": revision, "build_tree": build_tree}


def compile_vector_add(block_size: int = 1024, num_warps: int = 4, target: str = "nvidia", arch=None) -> dict:
    """Compile the built-in vector-add kernel; returns its ttir, ttgir and llir, and for an NVIDIA
    `arch` also the cubin that the ptxas Triton finds assembles."""
    result = libtriton.compile_vector_add(block_size=block_size, num_warps=num_warps, target=target)
    if target == "nvidia" and arch is not None:
        from .backends.nvidia.compiler import make_cubin

        result["cubin"] = make_cubin(result["llir"], int(arch))
    return result
