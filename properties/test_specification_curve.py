# The specification curve at page width (rgr_verify.claims.tools.multiverse.specification_curve): hundreds of
# analyses are summarised (ranked intervals as thin lines, each choice's share along the rank) in a PNG at most
# 1000 px wide drawn in a few seconds; a handful keep a mark per analysis and choice; the band (a side may be
# infinite, as report.json writes it) and the paper's value are drawn when given; bad inputs are a ValueError.
import random
import time

import pytest

from rgr_verify.claims.tools.multiverse import specification_curve

PIL = pytest.importorskip("PIL.Image")


def _robustness(n: int, seed: int = 1) -> dict:
    rng = random.Random(seed)
    dims = {"estimator": ["interval regression, censored cells as intervals", "paper estimator (LS through origin)"],
            "leave one seed out": ["none"] + [f"seed {k}" for k in range(10)], "F1 target": ["0.99", "0.985", "0.995"]}
    curve = []
    for i in range(n):
        choices = {d: vals[i % len(vals)] for d, vals in dims.items()}
        est = rng.gauss(1.2, 0.3)
        half = abs(rng.gauss(0.2, 0.05))
        interval = [est - half, est + half] if i % 17 else [est - half, float("inf")]
        status = "holds-empirically" if abs(est - 1.19) < 0.3 else "contradicted-empirically" if i % 3 else \
            "inconclusive"
        curve.append({"choices": choices, "estimate": est, "interval": interval, "status": status,
                      **({"resolvable": False} if i == 5 else {})})
    return {"curve": curve, "dimensions": dims, "summary": f"fragile: holds in some of {n} analyses"}


def _description(path) -> str:
    with PIL.open(path) as img:
        return img.size, img.text.get("Description", "")


def test_hundreds_of_analyses_are_summarised_at_page_width(tmp_path):
    specification_curve(_robustness(6), None, tmp_path / "warm.png", title="warm")  # matplotlib imported
    start = time.monotonic()
    out = specification_curve(_robustness(400), ("0.84", "1.68"), tmp_path / "many.png", title="many",
                              what="slope", paper=1.19)
    took = time.monotonic() - start
    assert out == tmp_path / "many.png" and out.is_file()
    (width, height), text = _description(out)
    assert width <= 1000 and height <= 1400, (width, height)
    assert "400 analyses" in text and "summarised" in text
    assert took < 5, f"{took:.1f} s for 400 analyses"


def test_a_few_analyses_keep_their_marks(tmp_path):
    out = specification_curve(_robustness(6), [0.5, "inf"], tmp_path / "sub" / "few.png", title="few", paper=1)
    (width, _), text = _description(out)
    assert width <= 1000 and "6 analyses" in text and "each analysis's choices marked" in text


def test_bad_inputs_are_value_errors_and_write_nothing(tmp_path):
    good = _robustness(6)
    for kwargs in ({"band": (2, 1)}, {"band": (1,)}, {"band": "wide"}, {"band": None, "paper": float("nan")},
                   {"band": None, "paper": "1.19"}, {"band": None, "paper": True}):
        band = kwargs.pop("band")
        with pytest.raises(ValueError):
            specification_curve(good, band, tmp_path / "bad.png", title="bad", **kwargs)
    with pytest.raises(ValueError, match="curve"):
        specification_curve({"dimensions": {}}, None, tmp_path / "bad.png", title="bad")
    assert not (tmp_path / "bad.png").exists()
