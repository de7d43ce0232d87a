"""Small file helpers shared by the report writer and the ledger."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_text", "atomic_write_bytes"]


def atomic_write_text(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and an atomic rename, so a reader
    sees the old file or the new one, never a partial one."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same directory, fsync, rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # as open() would create it, not mkstemp's 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
