"""The AMD backend's compiler (miniature): where its codegen library is loaded from at run time."""

import os

AMD_CODEGEN_LIBRARY = "libtriton_amd_codegen.so"


def get_amd_codegen_path():
    return os.environ.get("TRITON_AMD_CODEGEN_PATH") or os.path.join(os.path.dirname(__file__), "lib",
                                                                      AMD_CODEGEN_LIBRARY)
