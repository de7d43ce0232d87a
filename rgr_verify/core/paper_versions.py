"""The numbered labels of each version of arXiv 2509.22840, as data: one file per version.

``rgr_verify/data/labels-2509.22840-<version>.json`` lists every numbered label of that version of the paper (its
sections, appendices, statements, equations, figures, tables, algorithms, constructions) with its line range in
that version's plain text (``find_labels`` of :mod:`rgr_verify.audit.papertext`, or null where no text was at hand) and
the part of the paper that holds it (``sec8``, ``appb``: where the claims of that label live). It may also carry
``aliases``: a label of this version -> the label the claims use (the canonical version's, v3), for a result that
was renumbered. Claims keep their ids, seeds and ledger lines across versions; a renumbered label reaches them
through its alias.

Format::

    {"paper": "2509.22840", "version": "v4",
     "aliases": {"Theorem 9.1": "Theorem 8.1"},
     "labels": {"Sec. 1": {"lines": [11, 48], "part": "sec1"}, "App. E": {"lines": null, "part": "appe"}, ...}}

The canonical version (:data:`CANONICAL_VERSION`) decides where a claim lives and its id prefix
(:mod:`rgr_verify.claims.labels`); another version's file is read by ``paper-diff`` and for display.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["LabelSet", "load_label_set", "label_set", "known_versions", "label_file", "write_label_file", "renumber",
           "CANONICAL_VERSION", "DATA_DIR", "LABEL_GRAMMAR"]

PAPER = "2509.22840"
CANONICAL_VERSION = "v3"
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
_FILE = re.compile(r"^labels-2509\.22840-(?P<version>[\w.-]+)\.json$")

# A numbered label as the claims spell it (kinds, appendices A-H, Roman constructions, equations, floats).
LABEL_GRAMMAR = re.compile(
    r"^(?:Sec\. \d+(?:\.\d+)*|App\. [A-H](?:\.\d+)*|"
    r"(?:Theorem|Lemma|Corollary|Proposition|Definition|Remark|Example) [0-9A-H]+\.\d+|"
    r"Eq\. \(\d+\)|Figure \d+|Table \d+|Algorithm \d+|Construction (?:I|II|III|IV|V|VI|VII|VIII))$")
_PART = re.compile(r"^(?:sec\d+|app[a-h])$")


@dataclass(frozen=True)
class LabelSet:
    """The numbered labels of one version of the paper: ``lines`` (label -> 1-based inclusive line range, or None),
    ``parts`` (label -> part), ``aliases`` (label of this version -> the claims' label)."""

    version: str
    lines: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)
    paper: str = PAPER

    def canonical(self, label: str) -> str:
        """The label the claims use for ``label`` of this version (itself unless renumbered)."""
        return self.aliases.get(label, label)

    def local(self, canonical: str) -> str:
        """This version's label for the claims' label ``canonical`` (itself unless renumbered)."""
        back = {v: k for k, v in self.aliases.items()}
        return back.get(canonical, canonical)

    def part(self, label: str) -> str:
        """The part that holds ``label`` of this version; ValueError for a label it does not have."""
        if label not in self.parts:
            raise ValueError(f"{label} is not a label of arXiv {self.paper} {self.version} (its label file lists "
                             f"{len(self.parts)} labels)")
        return self.parts[label]


def _bad(where: str, what: str) -> ValueError:
    return ValueError(f"label file {where}: {what}")


def load_label_set(path) -> LabelSet:
    """Read and check one label file (see the module docstring); ValueError naming the file and the bad entry."""
    path = Path(path)
    where = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _bad(where, "no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(where, f"not a JSON text ({exc})") from None
    return _label_set_of(data, where)


def _label_set_of(data, where: str) -> LabelSet:
    if not isinstance(data, dict) or not isinstance(data.get("labels"), dict) or not data["labels"]:
        raise _bad(where, "must be an object with a non-empty 'labels' object")
    version = data.get("version")
    if not isinstance(version, str) or not re.fullmatch(r"[\w.-]+", version):
        raise _bad(where, f"'version' must be a word such as 'v4', got {version!r}")
    if data.get("paper", PAPER) != PAPER:
        raise _bad(where, f"'paper' must be {PAPER!r}, got {data.get('paper')!r}")
    lines, parts = {}, {}
    for label, entry in data["labels"].items():
        if not LABEL_GRAMMAR.match(label):
            raise _bad(where, f"{label!r} is not a numbered label (e.g. 'Theorem 4.1', 'Eq. (12)', 'App. E')")
        if not isinstance(entry, dict) or not isinstance(entry.get("part"), str) or not _PART.match(entry["part"]):
            raise _bad(where, f"{label!r} needs a 'part' such as 'sec8' or 'appb', got {entry!r}")
        rng = entry.get("lines")
        if rng is not None and not (isinstance(rng, list) and len(rng) == 2 and all(type(x) is int for x in rng)
                                    and 1 <= rng[0] <= rng[1]):
            raise _bad(where, f"{label!r}: 'lines' must be [first, last] (1-based, first <= last) or null, got {rng!r}")
        lines[label] = tuple(rng) if rng else None
        parts[label] = entry["part"]
    aliases = data.get("aliases") or {}
    if not isinstance(aliases, dict):
        raise _bad(where, "'aliases' must be an object: a label of this version -> the claims' label")
    for new, old in aliases.items():
        if new not in parts:
            raise _bad(where, f"alias {new!r} is not one of the file's labels")
        if not (isinstance(old, str) and LABEL_GRAMMAR.match(old)):
            raise _bad(where, f"alias {new!r} must name a numbered label, got {old!r}")
    if len(set(aliases.values())) != len(aliases):
        raise _bad(where, "two aliases name the same label")
    return LabelSet(version=version, lines=lines, parts=parts, aliases=dict(aliases))


def known_versions(directory=None) -> list[str]:
    """The versions with a label file in ``directory`` (default: the package's data)."""
    d = Path(directory) if directory else DATA_DIR
    return sorted(m["version"] for p in d.glob("labels-2509.22840-*.json") if (m := _FILE.match(p.name)))


@functools.lru_cache(maxsize=None)
def label_set(version: str = CANONICAL_VERSION) -> LabelSet:
    """The label set of ``version`` from the package's data; ValueError naming the versions there."""
    if not isinstance(version, str) or not re.fullmatch(r"[\w.-]+", version):
        raise ValueError(f"version must be a word such as 'v3', got {version!r}")
    path = DATA_DIR / f"labels-2509.22840-{version}.json"
    if not path.is_file():
        raise ValueError(f"no label file for version {version!r} of arXiv {PAPER} (known: "
                         f"{', '.join(known_versions()) or 'none'})")
    got = load_label_set(path)
    if got.version != version:
        raise _bad(str(path), f"'version' says {got.version!r}, the file name {version!r}")
    return got


def label_file(version: str, lines: dict, parts: dict, aliases: dict | None = None) -> str:
    """The text of a label file: one label per line, in the order of ``lines`` (e.g. ``find_labels``'s)."""
    missing = [lab for lab in lines if lab not in parts]
    if missing:
        raise ValueError(f"no part given for {', '.join(missing[:5])}")
    rows = [f"    {json.dumps(lab)}: {json.dumps({'lines': list(rng) if rng else None, 'part': parts[lab]})}"
            for lab, rng in lines.items()]
    return ("{\n" + f'  "paper": "{PAPER}",\n  "version": {json.dumps(version)},\n'
            + f'  "aliases": {json.dumps(aliases or {})},\n' + '  "labels": {\n' + ",\n".join(rows) + "\n  }\n}\n")


def write_label_file(path, version: str, lines: dict, parts: dict, aliases: dict | None = None) -> Path:
    """Write a label file to ``path``, checked before anything is written (ValueError: nothing written)."""
    from ..basics.files import atomic_write_text

    path = Path(path)
    text = label_file(version, lines, parts, aliases)
    _label_set_of(json.loads(text), str(path))
    atomic_write_text(path, text)
    return path


_WORDS = {"Theorem": r"Theorems?|Thms?\.", "Lemma": r"Lemmas?", "Corollary": r"Corollar(?:y|ies)|Cor\.",
          "Proposition": r"Propositions?|Props?\.", "Definition": r"Definitions?|Defs?\.", "Remark": r"Remarks?",
          "Example": r"Examples?", "Figure": r"Figures?|Figs?\.", "Table": r"Tables?|Tabs?\.",
          "Algorithm": r"Algorithms?|Alg\.", "Construction": r"Constructions?", "Sec.": r"Sections?|Secs?\.|§",
          "App.": r"Appendix|Appendices|Apps?\."}


def _patterns(label: str) -> list[re.Pattern]:
    """Where ``label`` is written in a text: after its keyword (any spelling), as a heading number, or, for an
    equation, as its tag or a bare ``(N)`` outside math."""
    eq = re.fullmatch(r"Eq\. \((\d+)\)", label)
    if eq:
        n = eq[1]
        return [re.compile(r"(?P<kw>\\tag\{)" + n + r"(?=\})"),
                re.compile(r"(?P<kw>(?<![\w)}{^_\\])\()" + n + r"(?=\))")]
    kind, number = label.rsplit(" ", 1)
    num = re.escape(number) + (r"(?![\w.]*\w)" if kind != "Construction" else r"\b")
    out = [re.compile(r"(?P<kw>\b(?:" + _WORDS[kind] + r")\s*)" + num)]
    if kind in ("Sec.", "App."):
        out.append(re.compile(r"(?m)(?P<kw>^)" + re.escape(number) + r"(?= +[A-Z])"))
    return out


def renumber(text: str, aliases: dict) -> str:
    """``text`` with every mention of a renumbered label (``aliases``: a label of this text -> the claims'
    label) written as the claims' label, so that a renumbering alone changes nothing in a diff. Mentions are
    found after their keyword ("Theorem 8.5", "Thm. 8.5", "Section 7"), as a heading number, or as an equation's
    tag; all are swapped at once (a chain 8.5 -> 8.1 -> 8.2 does not cascade)."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    marks = {}
    for i, (new, old) in enumerate(sorted(aliases.items())):
        if not (LABEL_GRAMMAR.match(new) and LABEL_GRAMMAR.match(old)):
            raise ValueError(f"aliases must map numbered labels to numbered labels, got {new!r}: {old!r}")
        if new.rsplit(" ", 1)[0] != old.rsplit(" ", 1)[0] and not (new.startswith("Eq.") and old.startswith("Eq.")):
            raise ValueError(f"an alias keeps the kind of its label, got {new!r}: {old!r}")
        mark = f"\x00{i}\x00"
        marks[mark] = re.fullmatch(r"Eq\. \((\d+)\)", old)[1] if old.startswith("Eq.") else old.rsplit(" ", 1)[1]
        for pat in _patterns(new):
            text = pat.sub(lambda m, mark=mark: m["kw"] + mark, text)
    for mark, number in marks.items():
        text = text.replace(mark, number)
    return text
