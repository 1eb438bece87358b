"""Compile warmup as a pytest plugin (test world: a miniature of python/triton/_compile_warmup.py of
triton-lang/triton main after #11098, loaded with `-p triton._compile_warmup`). It declares upstream's
options; the miniature has no compiler pool to warm, so it changes no test."""


def pytest_addoption(parser):
    parser.addoption("--warmup-only", action="store_true", help="compile explicitly enabled tests without execution")
    parser.addoption("--warmup-workers", type=int, default=1, help="maximum shared compiler processes")
    parser.addoption("--warmup-phase", action="append", default=[], metavar="PATH=PHASE",
                     help="the cache phase of the tests under PATH")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--warmup-only"):
        items[:] = []  # upstream compiles the marked tests and runs none of them
