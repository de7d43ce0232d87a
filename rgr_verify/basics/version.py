"""The package's version (``rgr_verify.__version__``), kept on the ground floor so that any layer may read it."""

__all__ = ["VERSION"]

VERSION = "0.1.0"  # as pyproject.toml's [project] version
