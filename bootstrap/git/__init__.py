"""Where sources come from: refs and URLs, pinned single-commit fetches, PyTorch's and Triton's pins,
Triton's layout at a commit, and safe checkouts."""
