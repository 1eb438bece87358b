"""Files tritondev writes and reads back: the one write helper (no link followed, regular files only),
the workspace's layout and lock, the state file names, and typed reads of the project's own JSON."""
