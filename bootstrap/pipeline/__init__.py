"""Building Triton: facts -> a typed plan -> execution. Build commands, jobs, toolchain, LLVM builds,
the Triton install, provenance, ccache."""
