"""CLI commands, one module (or package, for a command with subcommands) each. A module listed here
exists and works; nothing else is shown.

Each command is a module-level function made by `@options.command(...)`, which adds the shared
options it takes and builds its AppContext; it can be imported and called directly. Each module
defines `register(app)`, which adds its commands to the app. At module level the modules import only
typer, the standard library and bootstrap.commands.options (with the stdlib-only settings table), so
that `tritondev --help` stays fast; real work is imported inside the command functions.
"""

COMMAND_MODULES: tuple[str, ...] = (
    # The order of `tritondev --help`: the pipeline first, then daily tools, then plumbing.
    "setup",
    "build",
    "bisect",
    "pins",
    "purge",
    "doctor",
    "verify",
    "compile",
    "cache",
    "env",
    "run",
    "repro",
    "opt",
    "ir",
    "test",
    "config",
    "docker",
)
