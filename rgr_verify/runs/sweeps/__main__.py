"""``python -m rgr_verify.runs.sweeps SPEC_JSON``: one worker process of the local executor."""

import sys

from .worker import main

sys.exit(main())
