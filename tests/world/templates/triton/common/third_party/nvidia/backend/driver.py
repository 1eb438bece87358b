"""The NVIDIA backend's driver (miniature): the CUDA headers its launcher is compiled with."""

import os

dirname = os.path.dirname(os.path.realpath(__file__))
include_dirs = [os.path.join(dirname, "include")]
