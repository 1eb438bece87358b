"""This machine as a build sees it: toolchain, jobs, prerequisites, sanitizer runtime, --offline tools, build
trees.
"""
