"""triton.backends (miniature): nvidia and amd are links to third_party/<name>/backend, made by setup.py."""

backends = {"nvidia": "triton.backends.nvidia", "amd": "triton.backends.amd"}
