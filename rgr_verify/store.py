"""The old import path of :mod:`rgr_verify.runs.store` (the module itself, not a copy).

Kept because the checks of the claims import it by this name inside their functions, and a rule fingerprint
hashes a check's source (imports included): moving the import would re-key rules that did not change. New code
imports :mod:`rgr_verify.runs.store`.
"""

import sys

from .runs import store as _module

sys.modules[__name__] = _module
