"""The ``rgr-verify`` command line.

Each subcommand is a module ``rgr_verify/commands/<name>.py`` that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; they are discovered, so adding a command edits nothing else.
Bad usage (an invalid option value, an unknown claim id, an unwritable path) prints one line
``rgr-verify: error: ...`` on stderr, without a traceback, and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

__all__ = ["main", "build_parser", "UsageError"]


class UsageError(Exception):
    """Raised by commands for bad usage; printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        raise UsageError(message)


def _command_modules():
    from . import commands

    mods = [importlib.import_module(f"{commands.__name__}.{info.name}") for info in pkgutil.iter_modules(commands.__path__)
            if not info.name.startswith("_")]
    return sorted(mods, key=lambda mod: (getattr(mod, "ORDER", 100), mod.NAME))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rgr-verify", description="Executable audit of arXiv 2509.22840 (RGR capacity of attention).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "_run", None) is None:
            raise UsageError("a command is required (see `rgr-verify --help`)")
        return int(args._run(args) or 0)
    except (UsageError, ValueError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"rgr-verify: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rgr-verify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
