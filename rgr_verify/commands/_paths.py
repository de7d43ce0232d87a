"""Validation of output paths for CLI commands: checked before any work starts, so nothing partial is written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["writable_dir_target", "writable_file_target"]


def _probe_writable(directory: Path, option: str) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".rgr-probe-")
    except OSError as exc:
        raise ValueError(f"{option}: directory {str(directory)!r} is not writable ({exc.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def writable_dir_target(value: str, option: str) -> Path:
    """A directory that exists and is writable, or does not exist yet but whose parent is a writable directory."""
    path = Path(value).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option}: {value!r} exists and is not a directory")
        _probe_writable(path, option)
        return path
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option}: parent directory of {value!r} does not exist")
    _probe_writable(parent, option)
    return path


def writable_file_target(value: str, option: str) -> Path:
    """A file path whose directory exists and is writable, and that is not itself a directory."""
    path = Path(value).expanduser()
    if path.is_dir():
        raise ValueError(f"{option}: {value!r} is a directory, expected a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option}: directory of {value!r} does not exist")
    _probe_writable(parent, option)
    return path

