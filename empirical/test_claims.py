# Empirical claims (training), one test per claim, each compared with the ledger.
import pytest

from rgr_verify.testing import check_claim_against_ledger, claim_params


@pytest.mark.parametrize("claim", claim_params("empirical"))
def test_claim(claim, request):
    check_claim_against_ledger(claim, request)
