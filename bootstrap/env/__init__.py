"""The environment a developer works in: the workspace env file, exports for `tritondev env`,
per-pass IR dumps."""
