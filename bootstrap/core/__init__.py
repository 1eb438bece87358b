"""The foundation every command stands on: settings, workspace, the process runner, errors, output,
and the target interpreter."""
