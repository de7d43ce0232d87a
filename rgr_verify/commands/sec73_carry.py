"""``rgr-verify sec73-carry``: write the MiniLM copy a device machine without network needs for Sec. 7.3."""

from __future__ import annotations

import argparse

from ._options import UsageError, add_m, add_out, usage_errors

NAME = "sec73-carry"
HELP = "write the MiniLM copy (gzipped site/ folder) that a device machine needs for the full Sec. 7.3 sweep"
DESCRIPTION = (
    "Write a gzipped tar unpacking as site/: the MiniLM word embeddings with the rows the table of --m items does "
    "not use set to zero, vocab.txt and wordfreq's English list, for PYTHONPATH on a machine that reaches no "
    "package registry (docs/device-sec73.sh carries it). It is kept only if a fresh interpreter that finds only "
    "the copy builds the installed package's table bit for bit; the table's digest is printed."
)
ORDER = 61


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_out(parser, file=True, required=True, help="the tar to write (the runbook's: .gpucarry/site.tgz)")
    add_m(parser, help="items in the table (default: the full tier's 6144)")


def run(args) -> int:
    from ..models.embedding_sources import minilm_model_dir, wordfreq_ranks
    from ..runs.sec73_carry import FULL_M, build_minilm_carry

    m = args.m if args.m is not None else FULL_M
    with usage_errors():  # a missing package is the user's to install: the message gives the command
        minilm_model_dir()
        wordfreq_ranks()
    try:
        info = build_minilm_carry(args.out, m=m)
    except ValueError as exc:
        if str(exc).startswith("m "):  # more items than the vocabulary has: the user's --m
            raise UsageError(f"--{exc}") from None
        raise
    print(f"wrote {info['path']} ({info['bytes'] / 1e6:.1f} MB): MiniLM table of {info['rows']} rows "
          f"(m = {m} items and NULL), sha256 prefix {info['digest']}, checked bit for bit from the copy alone")
    return 0
