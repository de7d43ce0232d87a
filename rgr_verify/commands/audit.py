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
import time
from pathlib import Path

from ..claims import TIERS, Status, all_claims, read_ledger, root_seed_from_env, select_claims, write_ledger
from ..claims.runner import default_device, run_claims_parallel
from ..claims.verdict_store import VerdictStore
from ..audit.report import audit_document, command_line, render_table, run_meta, shown_status
from ..basics.files import atomic_write_text
from ..audit.report_md import render_markdown, value_in_words
from ..audit.site import write_site
from ..audit.site.stamp import stamp_plots
from ._options import (add_device, add_jobs, add_json_path, add_only, add_out, add_paper, add_paper_text, add_results,
                       add_seed, add_tier, results_given, usage_errors, writable_dir_target)

NAME = "audit"
HELP = "run the claims and write the audit report"
ORDER = 10


def add_arguments(p):
    add_tier(p, choices=TIERS, help="quick (CPU), full (adds long CPU runs) or gpu")
    add_only(p, help="comma-separated globs on claim ids or references, e.g. 'sec3-*,App. C'")
    add_paper(p)
    add_json_path(p, dest="json", help="also write the JSON record here (default: DIR/report.json)")
    add_out(p, default="rgr-report", help="report directory (default: rgr-report)")
    add_results(p, help="results store for empirical claims (replayed when present)")
    add_seed(p)
    add_device(p)
    add_jobs(p)
    store = p.add_mutually_exclusive_group()
    store.add_argument("--fresh", action="store_true",
                       help="run every claim, reusing no stored verdict (they are recorded again in the verdict "
                            "store, RESULTS/verdicts.jsonl)")
    store.add_argument("--no-store", action="store_true",
                       help="neither reuse nor record verdicts (default: a claim whose rule, stated values, settings, "
                            "library versions and every file its check read are unchanged since its verdict was "
                            "stored is not run again; its record says from which commit and date)")
    p.add_argument("--changed-since", metavar="REV",
                   help="run only the selected claims that a change since the git revision REV may touch: those "
                        "whose stored verdict depends on a file changed since REV (untracked files included), those "
                        "with no stored verdict, and, when the paper's text (--paper-text) lies in the checkout, those "
                        "resting on a numbered label its edit touches (rgr-verify paper-diff)")
    p.add_argument("--update-ledger", action="store_true", help="record the computed statuses in the ledger")
    p.add_argument("--quiet", action="store_true", help="do not print the table")
    p.add_argument("--allow-missing-evidence", action="store_true",
                   help="report claims whose committed evidence is missing as not run (default: the run stops with "
                        "exit 1 naming the store)")
    add_paper_text(p, help="your text of the paper (UTF-8): DIR/paper.html shows it with each numbered result, "
                           "equation and figure reference marked by its verdict and linked to its page, and each claim "
                           "on the line it is about (default: the v3 text from $RGR_VERIFY_PAPER_TEXT or shared/paper/ "
                           "beside the checkout when present; the package does not ship the paper's text)")
    p.add_argument("--screenshots", action="store_true",
                   help="also write DIR/screenshot-index.png and DIR/screenshot-claim.png (headless Chromium)")
    p.add_argument("--replace", action="store_true",
                   help="let a partial run (--only, --paper) overwrite DIR/report.md and report.json even when they "
                        "hold more claims (default: it writes report-partial.md and report-partial.json)")


def validate(args):
    """The options checked (a ValueError names the option) and resolved: (root seed, device, claims, jobs)."""
    from ..runs.store import validate_store

    seed = args.seed if args.seed is not None else root_seed_from_env()
    if args.device is None:
        device = default_device()
    else:
        device = args.device
        if device == "cuda":
            import torch

            if not torch.cuda.is_available():
                raise ValueError("--device cuda: no CUDA device is available on this machine")
    if results_given(args):
        writable_dir_target(args.results, "--results")
    claims = select_claims(args.only, tier="gpu", paper=args.paper)  # unselected tiers: not run
    jobs = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, 256)
    if device == "cuda":
        jobs = 1  # one process owns the GPU
    args.paper_text_value = _paper_text(args.paper_text)
    args.ledger_path = None
    if args.update_ledger:
        from ..claims.ledger import checkout_ledger

        args.ledger_path = checkout_ledger()
        if args.ledger_path is None:
            raise ValueError("--update-ledger writes the ledger of the rgr-verify checkout in the working directory; "
                             f"none holds {Path.cwd()} (run it inside your clone)")
    if args.screenshots:
        from ..audit.site.screenshots import MISSING_BROWSER, find_browser

        if find_browser() is None:
            raise ValueError(f"--screenshots: {MISSING_BROWSER}")
    with usage_errors("--results"):  # a store with a bad line stops the run before anything is written
        validate_store(args.results)
    if args.changed_since is not None:
        if args.no_store or args.fresh:
            raise ValueError("--changed-since reads the verdict store: it cannot go with --no-store or --fresh")
        with usage_errors("--changed-since"):
            claims = changed_claims(claims, args.changed_since, args.results, getattr(args, "paper_text", None))
    return seed, device, claims, jobs


def changed_claims(claims, rev: str, results, paper_text=None) -> list:
    """The claims of ``claims`` a change since the git revision ``rev`` may touch (``--changed-since``), in their
    order, after a line on stdout saying why each group is there."""
    from ..claims.verdict_store import PACKAGE_ROOT, VerdictStore, changed_files

    checkout = PACKAGE_ROOT.parent
    files = changed_files(rev, checkout)
    touched, recorded = VerdictStore(results).touched_by(files)
    ids = {c.id for c in claims}
    unrecorded = ids - recorded
    by_paper: set = set()
    where = ""
    if paper_text is not None:
        try:
            rel = Path(paper_text).resolve().relative_to(checkout.resolve()).as_posix()
        except ValueError:
            where = f"; the paper's text {paper_text} lies outside the checkout, so its edits are not compared"
        else:
            if rel in files:
                import subprocess

                from ..audit.papertext import paper_diff

                old = subprocess.run(["git", "-C", str(checkout), "show", f"{rev}:{rel}"], capture_output=True,
                                     text=True, check=False).stdout
                by_paper = {cid for row in paper_diff(old, Path(paper_text).read_text(encoding="utf-8"), claims)
                            for cid in row["claims"]}
    chosen = [c for c in claims if c.id in touched | unrecorded | by_paper]
    print(f"--changed-since {rev}: {len(files)} files changed; {len(chosen)} of {len(claims)} claims selected "
          f"({len(touched & ids)} depend on a changed file, {len(unrecorded)} have no stored verdict"
          + (f", {len(by_paper & ids)} rest on a paper label the text edit touches" if paper_text else "") + where + ")")
    return chosen


def _paper_text(path) -> str | None:
    """The text of ``--paper-text`` (checked when the option was parsed); without it the v3 text of this machine
    (:func:`rgr_verify.audit.papertext.default_text_path`), or None when it has none."""
    if path is not None:
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:  # readable when parsed, not now
            raise ValueError(f"--paper-text: cannot read {path}: {exc}") from None
    from ..audit.papertext import default_text_path

    found = default_text_path()
    if found is None:
        return None
    try:
        return found.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def run(args) -> int:
    from ..claims.tools import register_profiles

    register_profiles()  # $HYPOTHESIS_PROFILE scales property checks exactly as under pytest
    with usage_errors():
        seed, device, claims, jobs = validate(args)
    out, json_path, results = args.out, args.json, args.results
    if not args.allow_missing_evidence:
        from ..runs.evidence import missing_evidence, missing_evidence_message

        missing = missing_evidence(claims)
        if missing:  # an error of the run, not "not run": CI must not stay green while it checks nothing
            print(f"rgr-verify: error: {missing_evidence_message(missing)}", file=sys.stderr)
            return 1
    ledger = read_ledger()
    from tqdm import tqdm

    parent = out if out.exists() else out.parent
    staging = Path(tempfile.mkdtemp(dir=parent, prefix=".rgr-report-"))
    try:
        # on a terminal a bar; off one (CI logs, where tqdm would print nothing) a line a finished claim
        live = sys.stderr.isatty()
        bar = tqdm(total=len(claims), desc="claims", unit="claim", file=sys.stderr, disable=not live,
                   dynamic_ncols=True)
        started = time.perf_counter()

        def advance(res):
            if live:
                bar.set_postfix_str(res.claim.id[:40])
                bar.update(1)
            else:
                print(f"{res.claim.id} {res.verdict.status.value} {res.seconds:.1f}s"
                      + (f" (reused: {res.reused['commit'][:12]}, {res.reused['date']})" if res.reused else ""),
                      file=sys.stderr, flush=True)

        store = None if args.no_store else VerdictStore(results, reuse=not args.fresh)
        results_list = run_claims_parallel(claims, jobs=jobs, on_result=advance, tier=args.tier, root_seed=seed,
                                           device=device, out_dir=staging, results_dir=results, ledger=ledger,
                                           store=store)
        bar.close()
        reused = sum(r.reused is not None for r in results_list)
        print(f"audit: {len(results_list)} claims in {time.perf_counter() - started:.1f} s"
              + ("" if store is None else f" ({len(results_list) - reused} run, {reused} verdicts reused from the "
                 f"verdict store {store.path}{'; --fresh reruns them' if reused else ''})"),
              file=sys.stderr, flush=True)
        doc = audit_document(results_list, tier=args.tier, root_seed=seed, device=device,
                             meta=run_meta(command_line(NAME, args)))
        text_json = json.dumps(doc, indent=2, sort_keys=False) + "\n"
        # every plot gets its verdict band (the paper's value and ours) before it moves into place
        stamp_plots(doc["claims"], staging, shown_status=shown_status, in_words=value_in_words)
        # everything computed: move artefacts into place, then the reports
        out.mkdir(parents=True, exist_ok=True)
        for item in sorted(staging.rglob("*")):
            if item.is_file():
                dest = out / item.relative_to(staging)
                dest.parent.mkdir(parents=True, exist_ok=True)
                item.replace(dest)
        # a partial run (--only, --paper) never silently replaces a report of more claims
        fuller = 0
        if (args.only or getattr(args, "paper", None)) and not args.replace and (out / "report.json").is_file():
            try:
                fuller = len(json.loads((out / "report.json").read_text()).get("claims") or [])
            except (OSError, ValueError, AttributeError):
                fuller = 0
        partial = fuller > len(doc["claims"])
        statuses = {cid: e.status.value for cid, e in ledger.items()}
        if partial:
            atomic_write_text(out / "report-partial.json", text_json)
            atomic_write_text(out / "report-partial.md", render_markdown(doc, ledger=statuses))
        else:
            atomic_write_text(out / "report.json", text_json)
            atomic_write_text(out / "report.md", render_markdown(doc, ledger=statuses))
            _write_site(doc, out, statuses, args)
        if json_path is not None:
            atomic_write_text(json_path, text_json)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

    if not args.quiet:
        print(render_table(doc, width=shutil.get_terminal_size((160, 24)).columns))
    if not partial:
        print(f"site: {out / 'index.html'}" + (f", annotated paper: {out / 'paper.html'}" if args.paper_text_value
                                                else " (no annotated paper: the paper's text is not on this machine; "
                                                     "--paper-text FILE)"))
    if getattr(args, "screenshots", False) and not partial:
        from ..audit.site.screenshots import take_screenshots

        print("screenshots: " + ", ".join(str(p) for p in take_screenshots(out)))
    stem = "report-partial" if partial else "report"
    print(f"report: {out / (stem + '.md')}" + (f", JSON: {json_path}" if json_path else f", JSON: {out / (stem + '.json')}")
          + (f" (partial run of {len(doc['claims'])} claims: {out / 'report.md'} keeps the fuller report of {fuller} "
             "claims; --replace overwrites it)" if partial else ""))

    if args.update_ledger:
        updates = {r.claim.id: r.verdict.status for r in results_list if r.ran and r.verdict.status is not Status.ERROR}
        from ..claims.fingerprint import rule_fingerprint

        rules = {r.claim.id: rule_fingerprint(r.claim) for r in results_list if r.claim.id in updates}
        ledger = read_ledger(args.ledger_path)  # the checkout's ledger, which may differ from the installed one
        changed = {cid: st for cid, st in updates.items() if ledger.get(cid) is None or ledger[cid].status is not st}
        write_ledger(updates, order=[c.id for c in all_claims()], rules=rules, path=args.ledger_path)
        print(f"ledger: recorded {len(updates)} statuses ({len(changed)} new or changed) in {args.ledger_path}")
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


def _write_site(doc: dict, out: Path, ledger: dict, args) -> None:
    """The reader's site next to report.md (DIR/index.html, claims/, labels/) and, with the paper's text (--paper-text
    or the v3 text of this machine), DIR/paper.html."""
    text = getattr(args, "paper_text_value", None)
    if text is not None:
        atomic_write_text(out / "paper.html", annotated_paper(doc, text))
    write_site(doc, out, ledger=ledger, paper_html=text is not None, coverage=coverage_of(doc, text),
               results=results_of(doc, text))


def coverage_of(doc: dict, text: str | None) -> list:
    """The coverage map's rows for the site: the sentences of ``text`` (the map as the data records it when there
    is no text), each claim with its status in this audit, or the ledger's for a claim this audit did not run."""
    from ..audit.coverage import coverage_rows, load_coverage, recorded_rows, result_sentences
    from ..audit.report import shown_status
    from .coverage import deviations, statuses

    known = {cid: f"{st} (ledger)" for cid, st in statuses().items()}
    known.update({r["id"]: shown_status(r) for r in doc["claims"]})
    data = load_coverage()
    devs = deviations()
    return (coverage_rows(result_sentences(text), data, known, devs) if text is not None
            else recorded_rows(data, known, devs))


def results_of(doc: dict, text: str | None) -> list:
    """The numbered results of the theory sections for the site, each with the claims that bear on it and their
    statuses in this audit (the ledger's for a claim this audit did not run)."""
    from ..claims import all_claims
    from ..audit.coverage import label_rows, load_coverage
    from ..audit.papertext import V3_LABELS, find_labels
    from ..audit.report import shown_status
    from .coverage import statuses

    known = {cid: f"{st} (ledger)" for cid, st in statuses().items()}
    known.update({r["id"]: shown_status(r) for r in doc["claims"]})
    return label_rows(find_labels(text) if text is not None else V3_LABELS, all_claims(), known, load_coverage())


def annotated_paper(doc: dict, text: str) -> str:
    """DIR/paper.html of the audit document ``doc``: ``text`` with each label mention marked by the label's rolled-up
    status and linked to its page, and each claim marked on the lines it is about (:func:`rgr_verify.audit.papertext.
    claim_places`; a finding's lines highlighted), every line anchored ``#L<n>``."""
    from ..claims.structure import FINDING_STATUSES
    from ..audit.papertext import annotate, claim_places, slug

    labels = {lab: {"status": s["status"], "href": f"labels/{slug(lab)}.html"}
              for lab, s in doc["rollup"]["labels"].items()}
    n_lines = len(text.splitlines())
    marks: dict[int, list] = {}
    for r in doc["claims"]:
        if (r.get("paper") or "2509.22840") != "2509.22840":
            continue
        for first, last in claim_places(r):
            for n in range(first, min(last, n_lines) + 1):
                marks.setdefault(n, []).append({"claim": r["id"], "status": r["status"] if r.get("ran") else "not-run",
                                                "href": f"claims/{r['id']}.html", "severity": r.get("severity") or "",
                                                "finding": r["status"] in FINDING_STATUSES and bool(r.get("ran"))})
    return annotate(text, labels, marks=marks, back="index.html", math="katex/")
