"""``rgr-verify evidence``: the committed full-tier evidence (``evidence/``): list and verify it, add a store.

- ``rgr-verify evidence list [--json]``: every stored sweep with its preset, runs, completeness and provenance, each
  checked against its manifest (sha256) and its preset (run keys, engine version);
- ``rgr-verify evidence add DIR --preset P [--tier full] [--command CMD ...] [--notes TEXT] [--name NAME]
  [--replace] [--store FILE] [--adaptive]``: copy the preset's records from the results store in DIR (e.g. from a GPU machine, after
  ``rgr-verify sweep P --tier full --device cuda --results DIR``) into ``evidence/`` with a manifest of this
  checkout's commit and this machine's torch / CUDA / device; with ``--store FILE``, every record of another
  results store in DIR (``facts-runs.jsonl``, ``sec73-runs.jsonl``), read under that store wherever it is opened;
  with ``--adaptive``, the runs ``rgr-verify adaptive`` trained between the preset's rungs.

Exit status 0, 1 when ``list`` finds a store that does not verify, 2 on bad usage.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._options import add_evidence_dir, add_json_flag, add_tier, usage_errors, writable_dir_target

NAME = "evidence"
HELP = "list, verify and add the committed full-tier evidence (evidence/)"
ORDER = 45


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    ls = sub.add_parser("list", help="list and verify every stored sweep")
    add_json_flag(ls)
    add_evidence_dir(ls)
    add = sub.add_parser("add", help="add a preset's records from a results store to the evidence")
    add.add_argument("results", metavar="DIR", help="results directory holding runs.jsonl")
    add.add_argument("--preset", required=True, help="experiment preset (rgr-verify sweep --help lists them)")
    add_tier(add, choices=None, default="full", help="preset tier (a label with --store)")
    add.add_argument("--store", default=None, metavar="FILE",
                     help="commit every record of another results store in DIR (e.g. facts-runs.jsonl, "
                          "sec73-runs.jsonl); --preset is then a free label of what was swept")
    add.add_argument("--plan", default="", metavar="PLAN",
                     help="with --store sec73-runs.jsonl: the sweep the store belongs to, "
                          "sec73:TIER:SOURCE:DEVICE:ROOT_SEED (e.g. sec73:full:minilm:cuda:20250926; sec73v3:... "
                          "for the v3 engine's runs); the manifest then counts the sweep's runs, so a partial store "
                          "says how many it lacks")
    add.add_argument("--trained-on", default=None, metavar="DEVICE",
                     help="the device that trained the records, in words, when they were trained elsewhere (e.g. "
                          "on a GPU machine) and are added here (default: this machine)")
    add.add_argument("--trained-with", default=None, metavar="TORCH[+CUDA]",
                     help="with --trained-on: the torch version there, optionally +CUDA version (e.g. 2.9.0+12.8)")
    add.add_argument("--command", dest="commands", action="append", default=[], metavar="CMD",
                     help="the exact command that trained the records (repeatable; recorded, not run)")
    add.add_argument("--notes", default="", help="anything a reader must know about the runs")
    add.add_argument("--name", default=None, help="file stem in evidence/ (default PRESET-TIER)")
    add.add_argument("--replace", action="store_true", help="overwrite a stored sweep of the same name")
    add.add_argument("--adaptive", action="store_true",
                     help="copy the runs an adaptive D_K* search (rgr-verify adaptive) trained between the preset's "
                          "rungs instead of the preset's runs (default name PRESET-adaptive-TIER); read by "
                          "rgr-verify adaptive only, never by the claims")
    add_evidence_dir(add)


def validate(args) -> None:
    """Check the options (a ValueError names the option) before anything is written."""
    from ..runs.evidence import EVIDENCE_ENV, default_evidence_dir, manifests

    if args.action is None:
        raise ValueError("evidence needs an action: list or add")
    if args.action == "list":
        folder = Path(args.evidence) if args.evidence is not None else default_evidence_dir()
        via = "--evidence" if args.evidence is not None else f"${EVIDENCE_ENV}"
        if not folder.is_dir():
            raise ValueError(f"{via}: evidence folder {str(folder)!r} does not exist")
        with usage_errors(via):  # a malformed manifest in the folder named
            manifests(args.evidence)
        return
    from ..runs.kinds import store_of
    from ..runs.store import validate_store

    src = Path(args.results)
    if not src.is_dir():
        raise ValueError(f"DIR must be an existing results directory, got {args.results!r}")
    with usage_errors("DIR"):  # a malformed line of any store in DIR, naming the file and the line
        validate_store(src)
    if args.evidence is not None:
        writable_dir_target(args.evidence, "--evidence")
    _provenance(args)
    if args.store is None or args.store == store_of("engine"):
        if args.plan:
            raise ValueError(f"--plan names the sweep of a store other than {store_of('engine')}; it needs --store")
        return
    if args.adaptive:
        raise ValueError("--adaptive copies engine runs (runs.jsonl); it cannot be combined with --store")
    if args.plan:
        from ..runs.sec73_keys import STORE_NAME, planned_runs

        if args.store != STORE_NAME:
            raise ValueError(f"--plan names a Sec. 7.3 sweep: it needs --store {STORE_NAME}, got {args.store!r}")
        with usage_errors("--plan"):
            planned_runs(args.plan)


def run(args) -> int:
    from ..runs.kinds import store_of
    from ..runs.evidence import add_evidence, add_store_evidence, manifests, verify_evidence

    with usage_errors():
        validate(args)
    if args.action == "add":
        from ..claims.preregistration import with_rules  # the rules of the claims it feeds, recorded with it

        src, provenance = Path(args.results), _provenance(args)
        # what add refuses (an unknown preset or tier, a DIR without the preset's runs, a --name in use without
        # --replace, a bad --name or --command) is the user's: the library checks the values passed through
        with usage_errors():
            if args.store is None or args.store == store_of("engine"):
                man = add_evidence(src, args.preset, tier=args.tier, directory=args.evidence, name=args.name,
                                   commands=args.commands, notes=args.notes, replace=args.replace,
                                   adaptive=args.adaptive, rules=with_rules, provenance=provenance)
            else:
                man = add_store_evidence(src, args.store, name=args.name or f"{args.preset}-{args.tier}",
                                         label=args.preset, tier=args.tier, directory=args.evidence,
                                         commands=args.commands, notes=args.notes, replace=args.replace,
                                         rules=with_rules, plan=args.plan, provenance=provenance)
        state = ("adaptive-search runs between the rungs" if man.adaptive else
                 "complete" if man.complete else f"partial: {man.preset_runs - man.runs} runs missing")
        print(f"evidence {man.name}: {man.runs} of {man.preset_runs} runs of {man.preset} [{man.tier}] ({state}), "
              f"sha256 {man.sha256[:12]}..., device {man.device}, commit {man.commit[:12]}")
        if not args.commands:
            print("note: no --command recorded; the manifest cannot say how the runs were made", file=sys.stderr)
        return 0
    rows = verify_evidence(args.evidence)
    by_name = {m.name: m for m in manifests(args.evidence)}
    missing = {r["name"]: _missing_cells(by_name[r["name"]], args.evidence) for r in rows
               if r["ok"] and by_name[r["name"]].plan and not r["complete"]}
    if args.json:
        print(json.dumps([{**r, "manifest": by_name[r["name"]].to_dict(),
                           **({"missing_cells": [list(c) for c in missing[r["name"]]]} if r["name"] in missing else {})}
                          for r in rows], indent=2))
    else:
        if not rows:
            print("no committed evidence")
        for r in rows:
            m = by_name[r["name"]]
            state = ("adaptive" if m.adaptive else "complete" if r["complete"]
                     else f"partial ({r['preset_runs'] - r['runs']} missing)")
            check = "ok" if r["ok"] else f"FAILS: {r['problem']}"
            print(f"{r['name']:<22} {r['preset'][:14]:<14} {r['tier']:<5} {r['runs']:>5}/{r['preset_runs']:<5} {state:<12} "
                  f"{m.device[:28]:<28} {m.date or 'date n/a':<10} {m.commit[:10]}  {check}")
            if r["name"] in missing:
                cells = ", ".join(f"({D}, {h}): {n}" for D, h, n in missing[r["name"]])
                print(f"  {r['name']} misses runs of its plan {m.plan} in cells (D_K, h): {cells}")
    return 0 if all(r["ok"] for r in rows) else 1


def _provenance(args) -> dict:
    """The manifest's device / torch / CUDA when the records were trained on another machine."""
    if args.trained_on is None:
        if args.trained_with is not None:
            raise ValueError("--trained-with needs --trained-on")
        return {}
    if not args.trained_on.strip():
        raise ValueError("--trained-on must name the device, got an empty string")
    out = {"device": args.trained_on.strip()}
    if args.trained_with is not None:
        torch_v, _, cuda_v = args.trained_with.partition("+")
        if not torch_v.strip():
            raise ValueError(f"--trained-with must read TORCH[+CUDA], got {args.trained_with!r}")
        out["torch"], out["cuda"] = torch_v.strip(), (cuda_v.strip() or None)
    else:
        out["torch"], out["cuda"] = "not recorded", "not recorded"
    return out


def _missing_cells(man, directory) -> list:
    """The cells of a planned store's sweep that lack runs, with how many (rgr_verify.runs.sec73_sweep)."""
    from ..runs.evidence import read_evidence
    from ..runs.sec73_keys import missing_cells

    return missing_cells(man.plan, read_evidence(man, directory))
