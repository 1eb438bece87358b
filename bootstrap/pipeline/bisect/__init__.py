"""`bisect`: the commit range, the search, one step, its journal and checks."""
