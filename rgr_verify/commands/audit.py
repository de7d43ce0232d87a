"""``rgr-verify audit``: run the claims, print the table, write report.md and the JSON, compare with the ledger.

Exit status: 0 when every claim that ran matches the ledger, 1 when one differs (or has no entry, or its check
broke), 2 on bad usage. Claims above the selected tier, or that need a GPU that is absent, are reported as
"not run" (inconclusive) and are not compared.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .._checks import check_int
from ..claims import TIERS, Status, all_claims, read_ledger, root_seed_from_env, select_claims, write_ledger
from ..claims.runner import default_device, run_claims_parallel
from ..report import atomic_write_text, audit_document, render_markdown, render_table
from ._paths import writable_dir_target, writable_file_target

NAME = "audit"
HELP = "run the claims and write the audit report"
ORDER = 10


def add_arguments(p):
    p.add_argument("--tier", default="quick", help="quick (CPU, default), full (adds long CPU runs) or gpu")
    p.add_argument("--only", metavar="PATTERN", help="comma-separated globs on claim ids or references, e.g. 'sec3-*,App. C'")
    p.add_argument("--paper", metavar="ID", help="only claims concerning this paper (2509.22840, 2502.05076), cross-paper ones included")
    p.add_argument("--json", metavar="PATH", help="also write the JSON record here (default: DIR/report.json)")
    p.add_argument("--out", metavar="DIR", default="rgr-report", help="report directory (default: rgr-report)")
    p.add_argument("--results", metavar="DIR", help="results store for empirical claims (replayed when present)")
    p.add_argument("--seed", metavar="N", help="root seed (default: $RGR_VERIFY_SEED or the built-in one)")
    p.add_argument("--device", help="cpu or cuda (default: cuda when available)")
    p.add_argument("--jobs", metavar="N", type=int, default=None,
                   help="worker processes (default: the number of CPU cores; 1 runs in this process)")
    p.add_argument("--update-ledger", action="store_true", help="record the computed statuses in the ledger")
    p.add_argument("--quiet", action="store_true", help="do not print the table")


def _validate(args):
    if args.tier not in TIERS:
        raise ValueError(f"--tier must be one of {', '.join(TIERS)}, got {args.tier!r}")
    if args.seed is not None:
        try:
            seed = int(args.seed)
        except ValueError:
            raise ValueError(f"--seed must be an integer in [0, 4294967295], got {args.seed!r}") from None
        seed = check_int("--seed", seed, min_value=0, max_value=2**32 - 1)
    else:
        seed = root_seed_from_env()
    if args.device is None:
        device = default_device()
    elif args.device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be 'cpu' or 'cuda', got {args.device!r}")
    else:
        device = args.device
        if device == "cuda":
            import torch

            if not torch.cuda.is_available():
                raise ValueError("--device cuda: no CUDA device is available on this machine")
    out = writable_dir_target(args.out, "--out")
    json_path = writable_file_target(args.json, "--json") if args.json else None
    results = writable_dir_target(args.results, "--results") if args.results else None
    claims = select_claims(args.only, tier="gpu", paper=getattr(args, "paper", None))  # unselected tiers: not run
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    check_int("--jobs", jobs, min_value=1, max_value=256)
    if device == "cuda":
        jobs = 1  # one process owns the GPU
    return seed, device, out, json_path, results, claims, jobs


def run(args) -> int:
    from ..claims.tools import register_profiles

    register_profiles()  # $HYPOTHESIS_PROFILE scales property checks exactly as under pytest
    seed, device, out, json_path, results, claims, jobs = _validate(args)
    ledger = read_ledger()
    from tqdm import tqdm

    parent = out if out.exists() else out.parent
    staging = Path(tempfile.mkdtemp(dir=parent, prefix=".rgr-report-"))
    try:
        bar = tqdm(total=len(claims), desc="claims", unit="claim", file=sys.stderr, disable=None, dynamic_ncols=True)

        def advance(claim):
            bar.set_postfix_str(claim.id[:40])
            bar.update(1)

        results_list = run_claims_parallel(claims, jobs=jobs, progress=advance, tier=args.tier, root_seed=seed,
                                           device=device, out_dir=staging, results_dir=results, ledger=ledger)
        bar.close()
        doc = audit_document(results_list, tier=args.tier, root_seed=seed, device=device)
        text_json = json.dumps(doc, indent=2, sort_keys=False) + "\n"
        # everything computed: move artefacts into place, then the reports
        out.mkdir(parents=True, exist_ok=True)
        for item in sorted(staging.rglob("*")):
            if item.is_file():
                dest = out / item.relative_to(staging)
                dest.parent.mkdir(parents=True, exist_ok=True)
                item.replace(dest)
        atomic_write_text(out / "report.json", text_json)
        atomic_write_text(out / "report.md", render_markdown(doc))
        if json_path is not None:
            atomic_write_text(json_path, text_json)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

    if not args.quiet:
        print(render_table(doc, width=shutil.get_terminal_size((160, 24)).columns))
    print(f"report: {out / 'report.md'}" + (f", JSON: {json_path}" if json_path else f", JSON: {out / 'report.json'}"))

    if args.update_ledger:
        updates = {r.claim.id: r.verdict.status for r in results_list if r.ran and r.verdict.status is not Status.ERROR}
        changed = {cid: st for cid, st in updates.items() if ledger.get(cid) is None or ledger[cid].status is not st}
        from ..claims.fingerprint import rule_fingerprint

        rules = {r.claim.id: rule_fingerprint(r.claim) for r in results_list if r.claim.id in updates}
        write_ledger(updates, order=[c.id for c in all_claims()], rules=rules)
        print(f"ledger: recorded {len(updates)} statuses ({len(changed)} new or changed)")
        for cid, st in changed.items():
            old = ledger.get(cid)
            print(f"  {cid}: {old.status.value if old else '(none)'} -> {st.value}")
        errors = [r.claim.id for r in results_list if r.verdict.status is Status.ERROR]
        if errors:
            print(f"not recorded (check broke): {', '.join(errors)}", file=sys.stderr)
            return 1
        return 0
    bad = [r for r in results_list if r.matches is False]
    for r in bad:
        exp = r.expected.value if r.expected else "no ledger entry"
        print(f"MISMATCH {r.claim.id}: computed {r.verdict.status.value}, ledger {exp}", file=sys.stderr)
    return 1 if bad else 0
