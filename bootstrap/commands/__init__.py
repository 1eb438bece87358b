"""CLI commands, one module each. A module listed here exists and works; nothing else is shown.

Each module defines `register(app)`; it imports only typer and the standard library at module
level so that `tritondev --help` stays fast. Real work is imported inside the command functions.
"""

COMMAND_MODULES: tuple[str, ...] = (
    "verify",
    "compile",
    "config",
    "docker",
    "doctor",
    "pins",
    "purge",
    "cache",
    "env",
    "run",
    "setup",
    "build",
)
