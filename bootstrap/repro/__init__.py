"""From a failing program to a standalone kernel repro: `tritondev repro capture|ls|show|make`.

records.py reads what a capture wrote (outside input: checked field by field); store.py finds captures
and their kernels on disk; render.py turns one record into repro.py and its header (pure); capture.py
runs a command with the capture hook (bootstrap/core/target/scripts/tritondev_capture*.py); make.py writes a
repro folder and runs it; verdict.py reads what a repro answered.
"""
