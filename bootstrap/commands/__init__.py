"""CLI commands, one module each. A module listed here exists and works; nothing else is shown.

Each module defines `register(app)`; it imports only typer and the standard library at module
level so that `tritondev --help` stays fast. Real work is imported inside the command functions.
"""

COMMAND_MODULES: tuple[str, ...] = (
    # The order of `tritondev --help`: the pipeline first, then daily tools, then plumbing.
    "setup",
    "build",
    "pins",
    "purge",
    "doctor",
    "verify",
    "compile",
    "cache",
    "env",
    "run",
    "config",
    "docker",
)
