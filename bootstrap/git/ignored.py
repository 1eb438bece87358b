"""Which ignored files a checkout of another commit would replace: git treats them as expendable,
the user's notes and local configs kept out of git by .git/info/exclude are work. Pure."""

from __future__ import annotations


def overwritten_by_checkout(ignored: list[str], tracked: list[str]) -> list[str]:
    """The ignored files a checkout of a tree with the `tracked` files would replace or delete: the
    same path, a path under a file the tree tracks, or a path where the tree has a folder. Pure."""
    files = set(tracked)
    folders = {"/".join(parts[:i]) for parts in (p.split("/") for p in tracked) for i in range(1, len(parts))}
    conflicts = []
    for path in ignored:
        parts = path.rstrip("/").split("/")
        prefixes = ("/".join(parts[:i]) for i in range(1, len(parts)))
        if path in files or path.rstrip("/") in folders or any(prefix in files for prefix in prefixes):
            conflicts.append(path)
    return conflicts
