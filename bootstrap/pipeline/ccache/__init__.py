"""ccache: remote storage, hit counts over a build, proof that a remote works."""
