"""tritondev: build the Triton compiler from source, matched to PyTorch's pin."""

__version__ = "0.1.0"
