# A verdict names each source of its evidence once: a cached measurement hit again inside another cached one (a
# memo inside a memo, as the fig3-* checks do with the sec6-grid store) used to replay its provenance a second time.
from rgr_verify.claims.base import Claim, Kind, Status, Tier, Verdict
from rgr_verify.claims.tools.measure import memo
from rgr_verify.claims.runner import run_claim

_SOURCE = "planted-store [full]: 3 runs replayed from evidence/planted.jsonl.gz"


def _check(ctx):
    def grid():
        ctx.provenance.append(_SOURCE)
        return 3

    def fit():
        return memo("planted-grid", ctx, grid, with_seed=False) + 1  # the inner memo: a hit on the second use

    a = memo("planted-grid", ctx, grid, with_seed=False)
    b = memo("planted-fit", ctx, fit)
    return Verdict(Status.VERIFIED, measured_value=a + b, evidence="planted", evidence_level="proved")


def test_a_source_is_named_once_when_a_memo_is_hit_inside_another():
    claim = Claim(id="sec3-planted-provenance-once", ref="Sec. 3", statement="planted", kind=Kind.SYMBOLIC,
                  tier=Tier.QUICK, check=_check, role="detail", provenance="ours")
    for _ in range(2):  # a cold and a warm cache alike
        v = run_claim(claim, tier="quick", device="cpu").verdict
        assert v.evidence.count(_SOURCE) == 1, v.evidence
