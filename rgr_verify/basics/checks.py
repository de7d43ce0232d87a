"""Argument validation shared by every public function of rgr_verify.

Each helper raises ``ValueError`` whose message names the parameter, its allowed range and the value
received, e.g. ``"m must be an integer >= 1, got 0"``. The CLI turns these messages into one-line errors.
"""

from __future__ import annotations

import math
import numbers
from typing import Iterable

import numpy as np

__all__ = [
    "check_int",
    "check_real",
    "check_choice",
    "check_probability",
    "check_finite_array",
    "check_rng",
    "check_torch_device",
]


def check_int(name: str, value, *, min_value: int | None = None, max_value: int | None = None) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer in ``[min_value, max_value]``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} must be an integer{_range_text(min_value, max_value)}, got {value!r}")
    value = int(value)
    if (min_value is not None and value < min_value) or (max_value is not None and value > max_value):
        raise ValueError(f"{name} must be an integer{_range_text(min_value, max_value)}, got {value}")
    return value


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite ``float`` in the interval described by ``low``/``high``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a real number{_interval_text(low, high, low_open, high_open)}, got {value!r}")
    value = float(value)
    bad = not math.isfinite(value)
    if low is not None:
        bad |= value <= low if low_open else value < low
    if high is not None:
        bad |= value >= high if high_open else value > high
    if bad:
        raise ValueError(f"{name} must be a finite real number{_interval_text(low, high, low_open, high_open)}, got {value}")
    return value


def check_probability(name: str, value, *, open_low: bool = False, open_high: bool = False) -> float:
    """A real number in [0, 1] (endpoints optionally excluded)."""
    return check_real(name, value, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_choice(name: str, value, choices: Iterable):
    """Return ``value`` if it is one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {shown}, got {value!r}")
    return value


def check_torch_device(name: str, device) -> str:
    """Return ``device`` as a string if it is ``"cpu"`` or ``"cuda"`` (``"cuda:N"`` too) and usable here: a CUDA
    device needs CUDA available."""
    text = str(device)
    if text != "cpu" and not text.startswith("cuda"):
        raise ValueError(f"{name} must be 'cpu' or 'cuda', got {device!r}")
    if text.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"{name} 'cuda' requested but CUDA is not available")
    return text


def check_finite_array(name: str, array, *, ndim: int | None = None) -> np.ndarray:
    """Return ``array`` as a float ndarray after checking its rank and that it holds no NaN or inf."""
    try:
        arr = np.asarray(array, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {type(array).__name__}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return arr


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return ``rng`` after checking it is a ``numpy.random.Generator`` (seeds are explicit, never global)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _range_text(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f" in [{lo}, {hi}]"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


def _interval_text(lo, hi, lo_open, hi_open) -> str:
    if lo is None and hi is None:
        return ""
    left = "(" if lo_open or lo is None else "["
    right = ")" if hi_open or hi is None else "]"
    lo_s = "-inf" if lo is None else f"{lo:g}"
    hi_s = "inf" if hi is None else f"{hi:g}"
    return f" in {left}{lo_s}, {hi_s}{right}"
