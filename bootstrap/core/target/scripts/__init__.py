"""Stdlib-only scripts that run inside the target interpreter; tritondev never imports them.

This folder is sys.path[0] while one runs: every file here is named tritondev_*.py so that none shadows a
module of the user's code.
"""
