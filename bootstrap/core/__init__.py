"""The foundation every command stands on. Its own modules are the smallest shared pieces (errors and
their fix lines, masking secrets, the terminal, the per-run state, the command context); the
sub-packages hold one job each:

- io: every write of a file (never through a link), the workspace and its state files, JSON fields read back
- process: starting processes (the one runner), their environment, output, logs and records
- settings: the settings table, its file, values and parsers, what a workspace remembers
- target: the target interpreter, the in-target scripts and the shared answers they print
"""
