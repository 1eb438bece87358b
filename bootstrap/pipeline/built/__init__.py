"""A finished workspace build: what setup writes and every other command reads (the state, the step
records, the Triton build folder, the last setup's record) and how long build commands run.
"""
