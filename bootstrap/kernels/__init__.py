"""Run and cross-compile Triton kernels in the target environment: `tritondev verify` and `tritondev compile`.

tritondev never imports triton itself; everything Triton does happens in a fresh interpreter of the
target environment, running the stdlib-only scripts of bootstrap/inside/.
"""
