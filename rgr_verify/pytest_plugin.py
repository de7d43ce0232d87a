"""pytest plugin of rgr-verify, loaded by the repo's root conftest.py (no ``pytest11`` entry point: other projects
that install rgr-verify load it only with ``-p rgr_verify.pytest_plugin``): markers, ``--tier``, seed header, verdict
summary.

- markers: ``symbolic``, ``property``, ``empirical``, ``gpu``, ``slow``;
- ``--tier quick|full|gpu`` (default quick, or ``$RGR_VERIFY_TIER``): ``slow`` tests run from tier full on,
  ``gpu`` tests at tier gpu and only where CUDA is available (otherwise they are skipped, with the reason);
- the verdict store (:func:`verdict_store`): a claim test reuses its claim's stored verdict while everything the
  verdict depends on is unchanged, else runs the check and records it; ``--fresh`` runs every check;
- the root seed (``$RGR_VERIFY_SEED``) is printed in the header and available as ``config.rgr_root_seed``;
- a terminal summary counts claim verdicts by status (and by paper, when claims of several papers ran) and lists
  mismatches with the ledger.
"""

from __future__ import annotations

import json
import os

import pytest

from .basics.settings import TIER_ENV, env

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Each xdist worker already has a core: BLAS/OpenMP thread pools on top of that oversubscribe the machine and
    # slow small matrix products down 10-50x. This module is imported before numpy/torch in a worker, so the
    # settings take effect; explicit values in the environment win.
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

_MARKERS = {
    "symbolic": "claim checked symbolically (sympy): bounds/ tier",
    "property": "property or probabilistic claim (Hypothesis, Monte Carlo): properties/ tier",
    "empirical": "claim checked by training models: empirical/ tier",
    "gpu": "needs a CUDA GPU and --tier gpu; skipped otherwise",
    "slow": "long-running; runs with --tier full or gpu",
}


def pytest_addoption(parser):
    from .claims.base import TIERS  # imported here: numpy loads after the worker's thread settings above

    group = parser.getgroup("rgr-verify")
    group.addoption("--allow-missing-evidence", action="store_true", default=False,
                    help="report claims whose committed evidence is missing as skipped (default: they fail)")
    group.addoption("--tier", action="store", default=env(TIER_ENV, "quick"), choices=TIERS,
                    help="cost tier to run: quick (default CPU run), full (adds slow tests), gpu (adds GPU tests)")
    group.addoption("--fresh", action="store_true", default=False,
                    help="run every claim's check, reusing no verdict of the verdict store (default: a claim test "
                         "whose claim's rule, stated values, settings, library versions and every file its check "
                         "read are unchanged since its verdict was stored reuses that verdict)")


def pytest_configure(config):
    from .claims.runner import root_seed_from_env

    for name, text in _MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    config.rgr_root_seed = root_seed_from_env()
    config.pluginmanager.register(_VerdictCollector(), "rgr-verify-verdicts")


def pytest_report_header(config):
    import torch

    cuda = torch.cuda.is_available()
    return [f"rgr-verify: tier={config.getoption('--tier')} root seed={config.rgr_root_seed} "
            f"(set RGR_VERIFY_SEED to change) cuda={'yes' if cuda else 'no'}"]


def pytest_collection_modifyitems(config, items):
    from .claims.base import TIERS

    tier = config.getoption("--tier")
    rank = TIERS.index(tier)
    cuda = None
    for item in items:
        if "gpu" in item.keywords:
            if rank < 2:
                item.add_marker(pytest.mark.skip(reason="gpu test: run with --tier gpu on a machine with CUDA"))
                continue
            if cuda is None:
                import torch

                cuda = torch.cuda.is_available()
            if not cuda:
                item.add_marker(pytest.mark.skip(reason="gpu test: no CUDA device here (claim is inconclusive)"))
        elif "slow" in item.keywords and rank < 1:
            item.add_marker(pytest.mark.skip(reason="slow test: run with --tier full"))


def verdict_store(config):
    """The session's verdict store (:class:`~rgr_verify.claims.verdict_store.VerdictStore` of the results folder,
    one per process), ``reuse=False`` under ``--fresh``."""
    store = getattr(config, "rgr_verdict_store", None)
    if store is None:
        from .claims.verdict_store import VerdictStore

        store = config.rgr_verdict_store = VerdictStore(reuse=not config.getoption("--fresh", default=False))
    return store


def pytest_runtest_setup(item):
    from .claims.base import Claim
    from .claims.verdict_store import mark_untraced

    claim = getattr(getattr(item, "callspec", None), "params", {}).get("claim")
    if not isinstance(claim, Claim):  # another test: what it leaves in caches was computed untraced

        mark_untraced()


@pytest.fixture(scope="session")
def rgr_root_seed(request) -> int:
    """The session's root seed (``$RGR_VERIFY_SEED`` or the default)."""
    return request.config.rgr_root_seed


@pytest.fixture(scope="session")
def rgr_tier(request) -> str:
    """The session's tier."""
    return request.config.getoption("--tier")


class _VerdictCollector:
    """Collects claim verdicts from test reports (works under pytest-xdist: reports carry user_properties)."""

    def __init__(self):
        self.records: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        if report.when != "call":
            return
        for name, value in getattr(report, "user_properties", ()):
            if name == "rgr_verdict":
                rec = json.loads(value)
                self.records[rec["id"]] = rec

    def _post_hoc(self):
        """(post hoc, fed) over the claims of this session that committed evidence feeds, or None when none is."""
        from .claims import all_claims
        from .claims.preregistration import fed_by_any, post_hoc
        from .runs.evidence import manifests

        mans = manifests()
        fed = fed_by_any(mans, [c for c in all_claims() if c.id in self.records])
        if not fed:
            return None
        return sum(post_hoc(c, mans) is not None for c in fed.values()), len(fed)

    def pytest_terminal_summary(self, terminalreporter):
        if not self.records:
            return
        from .audit.report import shown_status

        tr = terminalreporter
        tr.section("rgr-verify claim verdicts")
        counts: dict[str, int] = {}
        for rec in self.records.values():
            key = shown_status(rec)
            counts[key] = counts.get(key, 0) + 1
        tr.write_line(", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f"  ({len(self.records)} claims)")
        reused = sum(bool(rec.get("reused")) for rec in self.records.values())
        if reused:
            tr.write_line(f"  {reused} of these verdicts reused from the verdict store (what they depend on is "
                          "unchanged); --fresh reruns every check")
        by_paper = records_by_paper(self.records.values())
        if len(by_paper) > 1:
            for paper, recs in by_paper.items():
                sub: dict[str, int] = {}
                for rec in recs:
                    sub[shown_status(rec)] = sub.get(shown_status(rec), 0) + 1
                tr.write_line(f"  {paper}: " + ", ".join(f"{n} {k}" for k, n in sorted(sub.items()))
                              + f"  ({len(recs)} claims)")
        levels: dict[str, dict[str, int]] = {}
        for rec in self.records.values():
            if rec["ran"]:
                row = levels.setdefault(rec.get("evidence_level") or "no level", {})
                row[rec["status"]] = row.get(rec["status"], 0) + 1
        if levels:
            from .claims.levels import level_rank

            tr.write_line("  by evidence level: " + "; ".join(
                f"{lvl}: " + ", ".join(f"{n} {k}" for k, n in sorted(row.items()))
                for lvl, row in sorted(levels.items(), key=lambda kv: level_rank(kv[0]))))
        from .audit.report import SCALES, scale_of

        scales: dict[str, dict[str, int]] = {}
        for rec in self.records.values():
            status = rec["status"] if rec["ran"] else "inconclusive (not run)"
            row = scales.setdefault(scale_of(rec), {})
            row[status] = row.get(status, 0) + 1
        if scales:
            tr.write_line("  by scale: " + "; ".join(
                f"{scale}: " + ", ".join(f"{n} {k}" for k, n in sorted(scales[scale].items()))
                for scale in SCALES if scale in scales))
        post_hoc = self._post_hoc()
        if post_hoc is not None:
            tr.write_line(f"  rules fixed after their evidence (post hoc): {post_hoc[0]} of the {post_hoc[1]} claims "
                          "here that committed evidence feeds")
        bad = [r for r in self.records.values() if r["ran"] and r["status"] != r["expected"]]
        for rec in sorted(bad, key=lambda r: r["id"]):
            tr.write_line(f"  MISMATCH {rec['id']} ({rec['ref']}): computed {rec['status']}, ledger {rec['expected']}")


def records_by_paper(records) -> dict[str, list[dict]]:
    """Verdict records grouped by the paper their claim concerns (from the record, else from the registry)."""
    from .claims import all_claims

    papers = {c.id: c.paper for c in all_claims()}
    out: dict[str, list[dict]] = {}
    for rec in records:
        out.setdefault(rec.get("paper") or papers.get(rec["id"], "unknown"), []).append(rec)
    return dict(sorted(out.items()))
