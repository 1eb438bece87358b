"""The build recipe: pure functions from facts to commands and flags."""
