"""Starting processes: the one runner every child goes through (hardened git, dry runs, echo, logs), the
environment it hands children, the lines of their output and the record of each command."""
