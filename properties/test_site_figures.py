# The finding figures of the reader's site (rgr_verify.audit.site.figures): one small PNG per finding drawn from the
# record alone, by the kind of evidence it holds (a fitted rate against the stated band, failure rates against the
# stated probability, the two sides of an inequality, a limit along m, the values in words when there is no number),
# each with a legend naming the paper and ours and a caption; only findings get one, bad input is a ValueError, and
# write_site shows it on the finding's page as figure.finding-figure.
import struct

import pytest

from rgr_verify.claims import select_claims
from rgr_verify.claims.runner import run_claims
from rgr_verify.audit.report import audit_document
from rgr_verify.audit.site import write_site
from rgr_verify.audit.site.figures import FIGURE_KINDS, figure_png, is_finding, write_figures


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def _record(cid="x-claim", status="contradicted-empirically", **fields):
    return {"id": cid, "status": status, "ran": True, "statement": "a statement", "paper_value": "the paper's value",
            "params": {}, "witness": None, "measured_value": None, "stated": {}, **fields}


FIT_POINTS = [{"m": m, "ratio": 0.5 * m ** 0.8} for m in (64, 128, 256, 512, 1024)]
RECORDS = {
    "fitted-rate": _record(params={"claimed_exponent": 0.0, "band": [None, 0.25], "interval": [0.7, 0.9],
                                   "param": "rho"},
                           witness={"fit": {"slope": 0.8, "intercept": -0.6931471805599453, "lo": 0.7, "hi": 0.9},
                                    "points": FIT_POINTS}),
    "failure-rate": _record(status="refuted", params={"configs": [
        {"config": "a", "m": 64, "d_k": 100, "claimed_failure_rate": 64 ** -3.0,
         "resolution": {"interval": [0.1, 1.0]}}]}, measured_value=["6/6 failures; exact bounds [0.1, 1]"]),
    "two-sides": _record(status="refuted", params={"grid_points": 10}, witness={"m": 2},
                         measured_value={"lhs": 0.25, "rhs": 0.125, "failing_points": 4}),
    "limit": _record(status="refuted", params={"expect": "bounded"},
                     measured_value="lim_{m -> oo} log(m)/log(log(m)) = oo"),
    "values": _record(status="refuted", measured_value="no number here"),
}


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_each_kind_is_a_small_png_with_a_caption(kind):
    png, got, caption = figure_png(RECORDS[kind])
    assert got == kind and got in FIGURE_KINDS
    assert _size(png) == (600, 300)
    assert len(png) < 120_000
    assert caption.endswith(".") and len(caption) > 40


def test_the_fit_is_read_from_the_record_and_the_caption_says_what_is_drawn():
    _, _, caption = figure_png(RECORDS["fitted-rate"])
    assert "rho: 0.8 [0.7, 0.9] against <= 0.25" in caption
    assert "measured points (ratio against m" in caption  # the fit's columns were identified from its slope
    _, _, words = figure_png(RECORDS["values"])
    assert "no number" in words


def test_only_findings_and_bad_input():
    assert not is_finding({**RECORDS["values"], "status": "verified"})
    assert not is_finding({**RECORDS["values"], "ran": False})
    with pytest.raises(ValueError):
        figure_png({**RECORDS["values"], "status": "holds-empirically"})
    with pytest.raises(ValueError):
        figure_png("not a record")


def test_write_figures_writes_findings_only(tmp_path):
    records = [RECORDS["two-sides"], _record("y-ok", status="verified"), _record("z-not-run", ran=False)]
    out = write_figures(records, tmp_path / "figures")
    assert set(out) == {"x-claim"}
    assert out["x-claim"]["file"] == "x-claim.png" and out["x-claim"]["kind"] == "two-sides"
    assert [p.name for p in (tmp_path / "figures").iterdir()] == ["x-claim.png"]
    with pytest.raises(ValueError):
        write_figures([_record("../escape")], tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_write_site_shows_a_figure_on_every_finding_page(tmp_path):
    results = run_claims(select_claims("corb7-sym-square-le-sum,sec3-sym-*", tier="gpu"), tier="quick",
                         device="cpu")
    doc = audit_document(results, tier="quick", root_seed=20250926, device="cpu")
    write_site(doc, tmp_path)
    found = [r["id"] for r in doc["claims"] if is_finding(r)]
    assert found, "the audit has no finding to draw"
    for r in doc["claims"]:
        page = (tmp_path / "claims" / f"{r['id']}.html").read_text()
        if r["id"] in found:
            assert 'class="finding-figure"' in page and f'src="../figures/{r["id"]}.png"' in page
            assert _size((tmp_path / "figures" / f"{r['id']}.png").read_bytes()) == (600, 300)
        else:
            assert "finding-figure" not in page
    assert sorted(p.stem for p in (tmp_path / "figures").iterdir()) == sorted(found)
