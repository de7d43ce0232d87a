"""Measured values for the reader's site: small HTML tables with rounded numbers, and free text without reprs.

:func:`value_html` renders a value of report.json (a number, a string, a list, a dict, nested) as HTML: numbers
to 4 significant digits, a dict of scalars as a two-column table, a list of like dicts as a table with a column
per key, a list of numbers as one line, nested values as nested tables. Nothing is cut without a way to see it
all: past ``max_rows`` rows (or ``max_items`` numbers) the rest sits in a ``<details>`` element. :func:`clean_text`
makes a free-text field (notes, details, how it was checked) fit for a page: a Python dict or list written into it
(``{'m': '2'}``) becomes ``m = 2``, long decimals are rounded, and machine paths (``/tmp/...``, ``/home/...``, a
virtual environment's ``site-packages``) are cut down to what names the thing. :func:`number` is the rounding.
"""

from __future__ import annotations

import ast
import math
import re

from markupsafe import Markup, escape

__all__ = ["value_html", "clean_text", "number", "is_empty"]

_SCALARS = (bool, int, float, str, type(None))


def number(x) -> str:
    """``x`` for a reader: 4 significant digits, ``yes``/``no`` for booleans, integers whole."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        text = f"{x:.4g}"
        if "e" in text:
            mant, exp = text.split("e")
            return f"{mant}×10^{int(exp)}"
        return text
    raise ValueError(f"number() takes a bool, int or float, got {type(x).__name__}")


def is_empty(value) -> bool:
    return value is None or value == "" or (isinstance(value, (list, tuple, dict)) and not value)


# --- free text ------------------------------------------------------------------------------------------------

# An absolute path on the machine that ran the audit: /tmp/..., /home/..., /root/..., /work/..., /usr/..., a venv.
_PATH = re.compile(r"(?<![\w.:/])/(?:tmp|home|root|work|usr|opt|var|mnt|private|Users)/[^\s)\]\"',;]+")
_LONG_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d{5,}(?:[eE][-+]?\d+)?(?![\w.])")
_REPR = re.compile(r"[\[{]['\"(\[{\w.\-+ ]")  # the start of what may be a Python dict or list written into text


def _short_path(path: str) -> str:
    """What names the thing in a machine path: the part after ``site-packages/``, else the last two parts."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    parts = [p for p in path.split("/") if p]
    return "…/" + "/".join(parts[-2:] if len(parts) > 2 else parts[-1:])


def _repr_in_words(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} = {_repr_in_words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_repr_in_words(v) for v in value) + ")"
    if isinstance(value, (bool, int, float)):
        return number(value)
    return str(value)


def _literal_at(text: str, start: int) -> tuple[int, object] | None:
    """The end and value of a Python literal (a dict or a list) starting at ``text[start]``, or None."""
    opening = text[start]
    closing = {"{": "}", "[": "]"}[opening]
    depth = 0
    for i in range(start, min(len(text), start + 20000)):
        ch = text[i]
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                if ch != closing:
                    return None
                try:
                    value = ast.literal_eval(text[start:i + 1])
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    return None
                return i + 1, value
    return None


def _unrepr(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        m = _REPR.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        found = _literal_at(text, m.start())
        if found is None or not (isinstance(found[1], dict) or
                                  (isinstance(found[1], list) and any(isinstance(v, float) for v in found[1]))):
            out.append(text[m.start()])
            i = m.start() + 1
            continue
        end, value = found
        out.append(_repr_in_words(value) if isinstance(value, dict) else "[" + _repr_in_words(value)[1:-1] + "]")
        i = end
    return "".join(out)


def clean_text(text) -> str:
    """A free-text field for a page: reprs written in words, long decimals rounded, machine paths shortened."""
    if text is None:
        return ""
    text = str(text)
    text = _PATH.sub(lambda m: _short_path(m.group(0)), text)
    text = _unrepr(text)
    return _LONG_DECIMAL.sub(lambda m: number(float(m.group(0))), text)


# --- values as HTML -------------------------------------------------------------------------------------------

def _scalar(value) -> Markup:
    if value is None:
        return Markup('<span class="meta">none</span>')
    if isinstance(value, (bool, int, float)):
        return Markup('<span class="num">{}</span>').format(number(value))
    return Markup(escape(clean_text(value)))


def _numbers_line(items: list, max_items: int) -> Markup:
    shown = ", ".join(number(v) if not isinstance(v, str) and v is not None else clean_text(v or "none")
                      for v in items[:max_items])
    if len(items) <= max_items:
        return Markup('<span class="nums">{}</span>').format(shown)
    full = ", ".join(number(v) if not isinstance(v, str) and v is not None else clean_text(v or "none")
                     for v in items)
    return Markup('<details class="more"><summary><span class="nums">{}</span> … (all {} values)</summary>'
                  '<span class="nums">{}</span></details>').format(shown, len(items), full)


def _rows_with_more(rows: list[Markup], max_rows: int, head: Markup, what: str) -> Markup:
    table = Markup('<table class="value">{}{}</table>').format(head, Markup("").join(rows[:max_rows]))
    if len(rows) <= max_rows:
        return table
    rest = Markup('<table class="value">{}{}</table>').format(head, Markup("").join(rows[max_rows:]))
    return table + Markup('<details class="more"><summary>the other {} {}</summary>{}</details>').format(
        len(rows) - max_rows, what, rest)


def _html(value, depth: int, max_rows: int, max_items: int) -> Markup:
    if isinstance(value, _SCALARS):
        return _scalar(value)
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, dict):
        if not value:
            return Markup('<span class="meta">none</span>')
        if len(value) >= 2 and all(isinstance(v, dict) and v for v in value.values()):
            keys = []
            for v in value.values():
                keys += [k for k in v if k not in keys]
            if len(keys) <= 8:  # like records: one row each, a column per key
                head = Markup("<tr><th></th>{}</tr>").format(
                    Markup("").join(Markup("<th>{}</th>").format(clean_text(k)) for k in keys))
                rows = [Markup('<tr><th scope="row">{}</th>{}</tr>').format(clean_text(name), Markup("").join(
                    Markup("<td>{}</td>").format(_html(v.get(k), depth + 1, max_rows, max_items)) for k in keys))
                    for name, v in value.items()]
                return _rows_with_more(rows, max_rows, head, "rows")
        rows = [Markup('<tr><th scope="row">{}</th><td>{}</td></tr>').format(
            clean_text(k), _html(v, depth + 1, max_rows, max_items)) for k, v in value.items()]
        return _rows_with_more(rows, max_rows, Markup(""), "entries")
    if isinstance(value, list):
        if not value:
            return Markup('<span class="meta">none</span>')
        if all(isinstance(v, _SCALARS) and not isinstance(v, str) for v in value) or \
                all(isinstance(v, (int, float)) or v is None for v in value):
            return _numbers_line(value, max_items)
        if all(isinstance(v, dict) and v for v in value):
            keys = []
            for v in value:
                keys += [k for k in v if k not in keys]
            if len(keys) <= 10:
                head = Markup("<tr>{}</tr>").format(
                    Markup("").join(Markup("<th>{}</th>").format(clean_text(k)) for k in keys))
                rows = [Markup("<tr>{}</tr>").format(Markup("").join(
                    Markup("<td>{}</td>").format(_html(v.get(k), depth + 1, max_rows, max_items)) for k in keys))
                    for v in value]
                return _rows_with_more(rows, max_rows, head, "rows")
        if all(isinstance(v, str) for v in value):
            items = [Markup("<li>{}</li>").format(clean_text(v)) for v in value]
            lst = Markup('<ul class="value">{}</ul>').format(Markup("").join(items[:max_rows]))
            if len(items) <= max_rows:
                return lst
            return lst + Markup('<details class="more"><summary>the other {} items</summary><ul class="value">{}'
                                '</ul></details>').format(len(items) - max_rows, Markup("").join(items[max_rows:]))
        rows = [Markup('<tr><th scope="row">{}</th><td>{}</td></tr>').format(i + 1, _html(v, depth + 1, max_rows,
                                                                                           max_items))
                for i, v in enumerate(value)]
        return _rows_with_more(rows, max_rows, Markup(""), "items")
    return _scalar(str(value))


def value_html(value, *, max_rows: int = 12, max_items: int = 12) -> Markup:
    """``value`` (report.json's form) as HTML: rounded numbers, small tables, the rest behind ``<details>``."""
    if max_rows < 1 or max_items < 1:
        raise ValueError(f"max_rows and max_items must be >= 1, got {max_rows}, {max_items}")
    return _html(value, 0, int(max_rows), int(max_items))
