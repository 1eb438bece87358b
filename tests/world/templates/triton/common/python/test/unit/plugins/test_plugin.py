"""Pass plugins (test world: python/test/unit/plugins/test_plugin.py; upstream loads the library that
TRITON_PLUGIN_PATHS names, which the miniature does not build)."""
import triton


def test_plugin_pipeline_compiles():
    assert triton.compile_vector_add(block_size=128)["ttgir"]
