"""A verdict band under each plot of an audit: the paper's value and our verdict, in the image itself.

A plot leaves its check before the verdict exists, so the audit stamps it afterwards: :func:`stamp_plots` adds a
white band under every PNG artefact of ``directory`` naming, for each claim that drew it, the claim, its shown
status and evidence level, and the paper's value in words. The same image then serves report.md and the claim
pages. Pillow (a dependency of matplotlib) draws the band.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

__all__ = ["stamp_plots", "stamp_lines"]

_MARK = "rgr-verify-stamp"  # a PNG text chunk: an image is stamped once


def stamp_lines(records: list, shown_status, in_words) -> list[str]:
    """The band's lines for the claims ``records`` that drew one image."""
    lines = []
    for r in records:
        level = r.get("evidence_level") or "no evidence level"
        lines.append(f"{r['id']}: {shown_status(r)} ({level})")
        paper = in_words(r.get("paper_value"))
        if paper:
            lines.append(f"  the paper: {paper}")
    return lines


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has one default size
        return ImageFont.load_default()


def _stamp(path: Path, lines: list[str]) -> bool:
    from PIL import Image, ImageDraw, PngImagePlugin

    with Image.open(path) as img:
        if img.format != "PNG" or _MARK in (img.info or {}):
            return False
        img = img.convert("RGB")
    size = max(11, img.width // 90)
    font = _font(size)
    chars = max(40, int(img.width / (0.55 * size)))
    wrapped = [w for line in lines for w in (textwrap.wrap(line, chars, subsequent_indent="    ") or [""])]
    band = int(len(wrapped) * size * 1.3) + size
    out = Image.new("RGB", (img.width, img.height + band), "white")
    out.paste(img, (0, 0))
    draw = ImageDraw.Draw(out)
    draw.line([(0, img.height), (img.width, img.height)], fill=(150, 150, 150), width=1)
    for i, text in enumerate(wrapped):
        draw.text((size // 2, img.height + size // 2 + int(i * size * 1.3)), text, fill=(20, 20, 20), font=font)
    meta = PngImagePlugin.PngInfo()
    meta.add_text(_MARK, "1")
    tmp = path.with_name(path.name + ".tmp")
    out.save(tmp, format="PNG", pnginfo=meta)
    tmp.replace(path)
    return True


def stamp_plots(records: list, directory, *, shown_status, in_words) -> list[Path]:
    """Stamp every PNG artefact in ``directory`` named by a record of ``records`` (audit records with
    ``artefacts``); returns the stamped paths. An image already stamped is left alone."""
    directory = Path(directory)
    by_file: dict[str, list] = {}
    for r in records:
        for name in r.get("artefacts") or []:
            if str(name).lower().endswith(".png"):
                by_file.setdefault(str(name), []).append(r)
    done = []
    for name, recs in sorted(by_file.items()):
        path = directory / name
        if path.is_file() and _stamp(path, stamp_lines(recs, shown_status, in_words)):
            done.append(path)
    return done
