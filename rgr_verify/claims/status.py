"""The statuses a check can end in (re-exported by :mod:`rgr_verify.claims.base`)."""

from __future__ import annotations

import enum

__all__ = ["Status"]


class Status(str, enum.Enum):
    """Outcome of a check. Only the first four are evidence; ``error`` means the check itself broke."""

    VERIFIED = "verified"
    REFUTED = "refuted"
    HOLDS_EMPIRICALLY = "holds-empirically"
    CONTRADICTED_EMPIRICALLY = "contradicted-empirically"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value
