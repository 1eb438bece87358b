"""`setup` and `build`: facts -> a pure plan -> execution, with step records and the state `build` reads.
"""
