"""``rgr-verify store compact``: merge the shards that sweep workers wrote into each store's main file."""

from __future__ import annotations

import argparse

from ._options import add_results, usage_errors

NAME = "store"
HELP = "maintain a results directory (compact: merge the workers' shards into the main store files)"
ORDER = 42


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    compact = sub.add_parser("compact", help="merge every store's shards (<store>.shards/*.jsonl) into the store "
                                             "file, then delete them; safe to rerun, and to run while workers write")
    add_results(compact)


def validate(args) -> list:
    """Check the options (a ValueError names the option) before any store is changed: the shard folders."""
    from ..runs.store import SHARD_SUFFIX, validate_store

    if args.action != "compact":
        raise ValueError("store needs an action: compact")
    directory = args.results
    if not directory.is_dir():
        raise ValueError(f"--results: {str(directory)!r} is not a directory")
    shard_dirs = sorted(p for p in directory.iterdir() if p.is_dir() and p.name.endswith(SHARD_SUFFIX)
                        and len(p.name) > len(SHARD_SUFFIX))
    with usage_errors("--results"):  # every store of the directory is checked before any is changed
        validate_store(directory)
    return shard_dirs


def run(args) -> int:
    from ..runs.store import SHARD_SUFFIX, JsonlStore

    with usage_errors():
        shard_dirs = validate(args)
    directory = args.results
    if not shard_dirs:
        print(f"no shards in {directory}")
        return 0
    for shard_dir in shard_dirs:
        out = JsonlStore(directory, shard_dir.name[: -len(SHARD_SUFFIX)]).compact()
        print(f"{out['store']}: {out['shards']} shards merged, {out['moved']} records moved, {out['duplicates']} "
              f"duplicates and {out['torn']} torn lines dropped")
    return 0
