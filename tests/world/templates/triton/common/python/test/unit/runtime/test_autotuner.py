"""The autotuner (test world: python/test/unit/runtime/test_autotuner.py). The Makefile's test-interpret
names one parametrization of it by node id, `runtime/test_autotuner.py::test_kwargs[False]`."""
import pytest


@pytest.mark.interpreter
@pytest.mark.parametrize("use_cuda_graph", [False, True])
def test_kwargs(use_cuda_graph, device):
    if use_cuda_graph and device == "cpu":
        pytest.skip("CUDA graphs need the GPU")
    assert isinstance(use_cuda_graph, bool)
