"""distcc behind ccache: what a build gets, what distcc did, and the proof that each host compiles byte for byte
as this machine does.
"""
