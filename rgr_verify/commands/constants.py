"""``rgr-verify constants``: measured minimal constants of a "sufficiently large constants" theorem.

Example: ``rgr-verify constants --theorem theorem-b1 --m 64 128``. See :mod:`rgr_verify.analysis.minimal_constants` for the
criteria (exact union-bound certificates; smallest value at which all draws separate).
"""

from __future__ import annotations

import json

from ..basics.checks import check_int
from ..analysis.minimal_constants import PAPER_SIZES, THEOREMS, measured_constants
from ._options import add_json_flag, add_m, add_seed, usage_errors

NAME = "constants"
HELP = "print the measured minimal constants (C, c0) of Theorem 4.1, B.1, B.9 and Construction I"
ORDER = 61

_ALIASES = {"4.1": "theorem-4.1", "b.2": "theorem-4.1", "theorem-b2": "theorem-4.1", "b.1": "theorem-b1",
            "b.9": "theorem-b9", "construction-1": "construction-i", "i": "construction-i"}


def add_arguments(p) -> None:
    p.add_argument("--theorem", required=True,
                   help=f"one of {', '.join(THEOREMS)} (aliases: 4.1, B.1, B.9, I)")
    add_m(p, nargs="+", help="sizes m (default 64 128 256; Theorem 4.1 / B.9 need m >= 512 for a finite c0)")
    p.add_argument("--draws", type=int, default=3, help="independent draws per candidate value (default 3)")
    add_seed(p, default=0, help="seed of the draws (default 0)")
    add_json_flag(p)


def validate(args) -> tuple[str, int, list[int]]:
    """Check the options (a ValueError names the option): (theorem id, draws, sizes m)."""
    tid = _ALIASES.get(args.theorem.lower(), args.theorem.lower())
    if tid not in THEOREMS:
        raise ValueError(f"--theorem must be one of {', '.join(THEOREMS)} (aliases: 4.1, B.1, B.9, I), "
                         f"got {args.theorem!r}")
    draws = check_int("--draws", args.draws, min_value=1)
    ms = args.m or ([512, 768] if tid in ("theorem-4.1", "theorem-b9") else [64, 128, 256])
    for m in ms:
        check_int("--m", m, min_value=4, max_value=8192)
    return tid, draws, ms


def run(args) -> int:
    with usage_errors():
        tid, draws, ms = validate(args)
    res = measured_constants(tid, m_values=tuple(ms), n_draws=draws, seed=args.seed)
    if args.json:
        print(json.dumps(res, default=float, indent=1))
        return 0
    print(f"{res['theorem']}: {res['criterion']} (n_draws = {draws}, seed = {res['seed']})")
    for row in res["rows"]:
        print("  " + ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    if tid == "theorem-4.1":
        c0s = [r["c0_min"] for r in res["rows"] if r.get("c0_min")]
        if c0s:
            c0 = max(c0s)
            import math

            ok = [(m, d) for m, d in PAPER_SIZES if d >= c0 * math.log(m)]
            print(f"  paper sizes (Sec. 6.1) with d_model >= {c0:.1f} ln m: {ok or 'none'}")
    return 0
