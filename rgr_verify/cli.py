"""The ``rgr-verify`` command line.

Each subcommand is a module ``rgr_verify/commands/<name>.py`` that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; they are discovered, so adding a command edits nothing else. The
options several commands share are declared once, in :mod:`rgr_verify.commands._options`.

Bad usage and bugs are told apart. Bad usage (an invalid option value, an unknown claim id, an unwritable path) is
an argparse error or a :class:`UsageError`: a command raises it from the checks of its options, or a ValueError
raised while it checks them (or by a library call given a user's value) is converted where it is raised
(:func:`rgr_verify.commands._options.usage_errors`). It prints one line ``rgr-verify: error: ...`` on stderr,
without a traceback, and exits with status 2. A ValueError that escapes from the work itself is a bug: its
traceback and one line ``rgr-verify: internal error: ... (a bug; please report it)`` go to stderr, exit status 1.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import traceback

from .commands._options import UsageError

__all__ = ["main", "build_parser", "UsageError"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        # "argument --tier: --tier must be ...": a type's message names its option already
        named = re.match(r"argument (\S+): (.*)", message, re.S)
        if named and named.group(2).startswith(named.group(1).split("/")[0]):
            message = named.group(2)
        raise UsageError(message)


def _command_modules():
    from . import commands

    mods = [importlib.import_module(f"{commands.__name__}.{info.name}")
            for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]
    return sorted(mods, key=lambda mod: (getattr(mod, "ORDER", 100), mod.NAME))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rgr-verify", description="Executable audit of arXiv 2509.22840 (RGR capacity of attention).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "_run", None) is None:
            raise UsageError("a command is required (see `rgr-verify --help`)")
        return int(args._run(args) or 0)
    except UsageError as exc:
        print(f"rgr-verify: error: {_first_line(exc)}", file=sys.stderr)
        return 2
    except ValueError as exc:  # not raised by a check of the user's input: a bug
        traceback.print_exc(file=sys.stderr)
        print(f"rgr-verify: internal error: {type(exc).__name__}: {_first_line(exc)} (a bug; please report it)",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rgr-verify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
