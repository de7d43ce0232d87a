"""``rgr-verify store compact``: merge the shards that sweep workers wrote into each store's main file."""

from __future__ import annotations

import argparse

NAME = "store"
HELP = "maintain a results directory (compact: merge the workers' shards into the main store files)"
ORDER = 42


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    compact = sub.add_parser("compact", help="merge every store's shards (<store>.shards/*.jsonl) into the store "
                                             "file, then delete them; safe to rerun, and to run while workers write")
    compact.add_argument("--results", default=None,
                         help="results directory (default: $RGR_VERIFY_RESULTS or ~/.cache/rgr-verify/results)")


def run(args) -> int:
    from pathlib import Path

    from ..runs.store import SHARD_SUFFIX, JsonlStore, default_results_dir, validate_store

    if args.action != "compact":
        raise ValueError("store needs an action: compact")
    directory = Path(args.results) if args.results is not None else default_results_dir()
    if not directory.is_dir():
        raise ValueError(f"--results: {str(directory)!r} is not a directory")
    shard_dirs = sorted(p for p in directory.iterdir() if p.is_dir() and p.name.endswith(SHARD_SUFFIX)
                        and len(p.name) > len(SHARD_SUFFIX))
    try:  # every store of the directory is checked before any is changed
        validate_store(directory)
    except ValueError as exc:
        raise ValueError(f"--results: {exc}") from None
    if not shard_dirs:
        print(f"no shards in {directory}")
        return 0
    for shard_dir in shard_dirs:
        out = JsonlStore(directory, shard_dir.name[: -len(SHARD_SUFFIX)]).compact()
        print(f"{out['store']}: {out['shards']} shards merged, {out['moved']} records moved, {out['duplicates']} "
              f"duplicates and {out['torn']} torn lines dropped")
    return 0
