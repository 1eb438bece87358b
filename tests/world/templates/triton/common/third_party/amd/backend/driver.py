"""The AMD backend's driver (miniature)."""
