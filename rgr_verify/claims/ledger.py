"""The expected-verdict ledger: a plain text file, one ``claim-id  status  [rule=FINGERPRINT]  [# note]`` line per
claim.

The ledger is written from what the checks compute (``rgr-verify audit --update-ledger``), reviewed, and
committed. A test fails when a claim's computed status differs from its ledger entry; a refuted statement whose
refutation is recorded in the ledger is a finding of the audit and passes. ``rule=`` records the claim's rule
fingerprint (:func:`rgr_verify.claims.fingerprint.rule_fingerprint`) when the status was recorded: a rule changed
since fails the claim's test until the ledger is updated (reviewed) again.
"""

from __future__ import annotations

from pathlib import Path

from ..basics.files import atomic_write_text
from .base import Status

__all__ = ["LEDGER_PATH", "read_ledger", "write_ledger", "LedgerEntry", "checkout_ledger", "ledger_scheme"]

LEDGER_PATH = Path(__file__).with_name("ledger.txt")
_HEADER = """\
# rgr-verify expected-verdict ledger: claim id, then the status its check computes, then an optional note.
# Written from computed verdicts (`rgr-verify audit --update-ledger`), reviewed, then committed.
# Statuses: verified, refuted, holds-empirically, contradicted-empirically, inconclusive.
# rule=: the claim's rule fingerprint when its status was recorded (its check, analysis code, constants, stated values).
"""
_SCHEME_LINE = "# rule-scheme: {}  (rgr_verify.claims.fingerprint; the scheme the rule= fingerprints were computed with)\n"


def ledger_scheme(path: Path | str | None = None) -> int:
    """The fingerprint scheme the ledger's ``rule=`` values were computed with (its ``# rule-scheme: N`` line; 1 for
    a ledger written before schemes were recorded)."""
    path = Path(path) if path is not None else LEDGER_PATH
    if not path.exists():
        return 1
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("# rule-scheme:"):
            value = raw.split(":", 1)[1].split()[0]
            if not value.isdigit():
                raise ValueError(f"{path}: rule-scheme must be an integer, got {value!r}")
            return int(value)
    return 1


class LedgerEntry(tuple):
    """``(status, note, rule)``: ``rule`` is the recorded rule fingerprint ("" when none was recorded)."""

    __slots__ = ()

    def __new__(cls, status: Status, note: str = "", rule: str = ""):
        return super().__new__(cls, (Status(status), note, rule))

    @property
    def rule(self) -> str:
        return self[2]

    @property
    def status(self) -> Status:
        return self[0]

    @property
    def note(self) -> str:
        return self[1]


def checkout_ledger(start: Path | str | None = None) -> Path | None:
    """The ledger of the rgr-verify checkout holding ``start`` (default: the working directory): the first folder
    at or above it with ``pyproject.toml`` and ``rgr_verify/claims/ledger.txt``; None outside a checkout. The audit
    records statuses there, never in an installed copy of the package elsewhere."""
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "rgr_verify" / "claims" / "ledger.txt"
        if candidate.is_file() and (folder / "pyproject.toml").is_file():
            return candidate
    return None


def read_ledger(path: Path | str | None = None) -> dict[str, LedgerEntry]:
    """Parse the ledger. Raises ValueError naming the line for malformed entries or unknown statuses."""
    path = Path(path) if path is not None else LEDGER_PATH
    if not path.exists():
        return {}
    entries: dict[str, LedgerEntry] = {}
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line, _, note = raw.partition("#")
        if not line.strip():
            continue
        parts = line.split()
        rule = ""
        if len(parts) == 3 and parts[2].startswith("rule="):
            rule = parts.pop()[len("rule="):]
            if len(rule) != 12 or any(ch not in "0123456789abcdef" for ch in rule):
                raise ValueError(f"{path}:{lineno}: rule= must be 12 hex digits, got {rule!r}")
        if len(parts) != 2:
            raise ValueError(f"{path}:{lineno}: expected 'claim-id status [rule=FINGERPRINT]', got {raw.strip()!r}")
        cid, status = parts
        try:
            st = Status(status)
        except ValueError:
            allowed = ", ".join(s.value for s in Status if s is not Status.ERROR)
            raise ValueError(f"{path}:{lineno}: status must be one of {allowed}, got {status!r}") from None
        if st is Status.ERROR:
            raise ValueError(f"{path}:{lineno}: 'error' cannot be an expected status (fix the check instead)")
        if cid in entries:
            raise ValueError(f"{path}:{lineno}: duplicate ledger entry for {cid!r}")
        entries[cid] = LedgerEntry(st, note.strip(), rule)
    return entries


def write_ledger(updates: dict[str, Status], order: list[str], path: Path | str | None = None,
                 rules: dict[str, str] | None = None) -> Path:
    """Record ``updates`` (claim id -> status) in the ledger, keeping the other entries of ``order`` and their notes.
    ``rules`` (claim id -> rule fingerprint) records the fingerprints of the updated claims (an update without one
    keeps the recorded fingerprint only when the status is unchanged).

    ``order`` lists every known claim id: entries are written in that order, and an entry whose id is not in it (a
    claim that was renamed or removed) is dropped; an update for such an id is a ValueError. The file is replaced
    atomically.
    """
    path = Path(path) if path is not None else LEDGER_PATH
    entries = read_ledger(path)
    for cid, status in updates.items():
        status = Status(status)
        if status is Status.ERROR:
            raise ValueError(f"cannot record status 'error' for {cid!r}: the check broke, fix it first")
        old = entries.get(cid)
        same = old is not None and old.status is status
        rule = (rules or {}).get(cid) or (old.rule if same else "")
        entries[cid] = LedgerEntry(status, old.note if same else "", rule)
    unknown = sorted(set(updates) - set(order))
    if unknown:
        raise ValueError(f"updates must name claim ids listed in order, got unknown ids {unknown}")
    known = [cid for cid in order if cid in entries]
    width = max((len(c) for c in known), default=0)
    swidth = max((len(s.value) for s in Status), default=0)
    from .fingerprint import ACTIVE_SCHEME

    lines = [_HEADER, _SCHEME_LINE.format(ACTIVE_SCHEME)]
    for cid in known:
        entry = entries[cid]
        note = f"  # {entry.note}" if entry.note else ""
        status = f"{entry.status.value:<{swidth}}  rule={entry.rule}" if entry.rule else entry.status.value
        lines.append(f"{cid:<{width}}  {status}{note}\n")
    atomic_write_text(path, "".join(lines))
    return path
