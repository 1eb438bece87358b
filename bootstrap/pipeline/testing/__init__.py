"""`tritondev test NAME`: upstream's test targets, their requirements, the run and the counts read from each
runner's own report.
"""
