"""The target interpreter: running the stdlib-only scripts of scripts/ in it, the answers several packages
share (its environment, Triton's import and ptxas, the installed Triton), and the interpreter's facts."""
