"""Scripts that run inside the target interpreter (stdlib + triton, torch/numpy where needed).

They are files, not modules tritondev imports: the runner starts `<target python> <script> ...`.
Names carry a `tritondev_` prefix because this folder is sys.path[0] while they run and must not
shadow a module of the user's kernel code.
"""
