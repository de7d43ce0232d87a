# The scope of a refutation (hypotheses checked, readings) and its sub-grouping in the report.
"""``claims.tools.reading_record`` / ``refutation_scope`` and the report's findings grouped by scope."""

from __future__ import annotations

import pytest

from rgr_verify.claims.base import Status, Verdict
from rgr_verify.claims.tools import reading_record, refutation_scope, with_readings
from rgr_verify.audit.report import findings_by_scope


def test_reading_record_scopes():
    every = reading_record(["m >= 2"], {"A": "fails: m = 2", "B": "fails"})
    assert every["refuted_under"] == "every reading" and every["hypotheses_checked"] == ["m >= 2"]
    named = reading_record(["m >= 2"], {"A": "fails: m = 2", "B": "holds: m >= 3", "C": "not tested"})
    assert named["refuted_under"] == "reading(s): A"
    assert refutation_scope(reading_record(["h"], {"A": "holds"})) == "none"
    assert refutation_scope({}) == "unrecorded" and refutation_scope({"readings": {}}) == "unrecorded"


@pytest.mark.parametrize("hyps,readings,match", [
    ([], {"A": "fails"}, "hypotheses"),
    (["h"], {}, "readings"),
    (["h"], {"A": "refuted"}, r"readings\['A'\]"),
])
def test_reading_record_bad_input(hyps, readings, match):
    with pytest.raises(ValueError, match=match):
        reading_record(hyps, readings)


def test_with_readings_keeps_status_and_params():
    v = with_readings(Verdict(Status.REFUTED, params={"m": 4}), ["m = 4"], {"A": "fails"})
    assert v.status is Status.REFUTED and v.params["m"] == 4 and v.params["refuted_under"] == "every reading"


def test_findings_grouped_by_scope():
    recs = [{"id": "a", "params": {"refuted_under": "every reading"}},
            {"id": "b", "params": {"refuted_under": "reading(s): X"}},
            {"id": "c", "params": {}}]
    groups = {title: [r["id"] for r in g] for title, g in findings_by_scope(recs)}
    assert groups == {"Refuted under every reading": ["a"], "Refuted under a named reading": ["b"],
                      "Refuted (no reading record)": ["c"]}
