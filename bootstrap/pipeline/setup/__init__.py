"""`setup` and `build`: facts -> a pure plan -> execution, driven step by step; reached from above
through `api` alone. What a finished setup leaves is bootstrap.pipeline.built.
"""
