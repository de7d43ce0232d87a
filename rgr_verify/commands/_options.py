"""The options several ``rgr-verify`` commands share, each declared once here: its flag, type and validation, metavar
and default. A command passes only what is its own (a help text that differs meaningfully, its default, its set of
tiers); the flag and how its value is read and checked are this module's.

Values are checked as argparse reads them: a ``type=`` that raises :class:`argparse.ArgumentTypeError` whose message
names the option (the CLI prints it as one line, exit status 2), so a command receives them parsed. ``--results``
is resolved here, once: ``args.results`` is always a :class:`~pathlib.Path`, ``$RGR_VERIFY_RESULTS`` or
``~/.cache/rgr-verify/results`` (:func:`rgr_verify.runs.store.default_results_dir`) when the option is absent, and
:func:`results_given` tells whether the user named it (a command checks a named folder's writability only).

Bad usage and bugs are told apart (:mod:`rgr_verify.cli`): a command raises :class:`UsageError` for bad usage, or
checks its options inside :func:`usage_errors`, which turns a ValueError raised there (its own checks, or a library
call given a user's value) into one; any other ValueError is a bug. The output paths are checked before any work
starts (:func:`writable_dir_target`, :func:`writable_file_target`), so nothing partial is written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["UsageError", "usage_errors", "writable_dir_target", "writable_file_target", "results_given",
           "add_results", "add_tier", "add_only", "add_paper", "add_jobs", "add_seed", "add_device", "add_json_path",
           "add_json_flag", "add_threads", "add_paper_text", "add_out", "add_max_waste", "add_unit_max_batch",
           "add_workers", "add_stop_after", "add_replay_only", "add_evidence_dir", "add_m", "add_d_model",
           "add_heads", "add_d_k", "SHARED_FLAGS"]

# Every flag declared here; a command declares none of them by hand (properties/test_cli_options.py).
SHARED_FLAGS = ("--results", "--tier", "--only", "--paper", "--jobs", "--seed", "--device", "--json", "--threads",
                "--paper-text", "--out", "--max-waste", "--unit-max-batch", "--workers", "--stop-after",
                "--replay-only", "--evidence", "--m", "--d-model", "--heads", "--d-k")

SEED_MAX = 2**32 - 1  # a seed is an integer in [0, 2**32 - 1] (the root seed's range, $RGR_VERIFY_SEED's too)


class UsageError(Exception):
    """Bad usage (an invalid option value, an unknown claim id, an unwritable path): one line, exit status 2."""


@contextlib.contextmanager
def usage_errors(option: str | None = None):
    """Inside, a ValueError is the user's: a command's checks of its options, or a library call given a user's value
    (a bad value passed through). It is raised again as :class:`UsageError`, its message prefixed with ``option: ``
    when ``option`` is given and the message does not start with it already."""
    try:
        yield
    except ValueError as exc:
        msg = str(exc) or type(exc).__name__
        if option is not None and not msg.startswith(option):
            msg = f"{option}: {msg}"
        raise UsageError(msg) from None


def _argument_type(parse):
    """``parse(text)`` as an argparse ``type``: its ValueError (whose message names the option) becomes an
    ArgumentTypeError, which argparse reports as bad usage."""
    def convert(text):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(parse, "__name__", "value")
    return convert


def _integer(option: str, low: int, high: int | None = None):
    def integer(text: str) -> int:
        shown = f"an integer in [{low}, {high}]" if high is not None else f"an integer >= {low}"
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{option} must be {shown}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise ValueError(f"{option} must be {shown if high is not None else f'>= {low}'}, got {value}")
        return value

    return _argument_type(integer)


def _real(option: str, low: float, *, low_open: bool = False):
    from ..basics.checks import check_real

    def real(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{option} must be a real number, got {text!r}") from None
        return check_real(option, value, low=low, low_open=low_open)

    return _argument_type(real)


# --- output paths: checked before any work starts, so nothing partial is written ---------------------------------

def _probe_writable(directory: Path, option: str) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".rgr-probe-")
    except OSError as exc:
        raise ValueError(f"{option}: directory {str(directory)!r} is not writable ({exc.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def writable_dir_target(value: str, option: str) -> Path:
    """A directory that exists and is writable, or does not exist yet but whose parent is a writable directory."""
    path = Path(value).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ValueError(f"{option}: {str(value)!r} exists and is not a directory")
        _probe_writable(path, option)
        return path
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option}: parent directory of {str(value)!r} does not exist")
    _probe_writable(parent, option)
    return path


def writable_file_target(value: str, option: str) -> Path:
    """A file path whose directory exists and is writable, and that is not itself a directory."""
    path = Path(value).expanduser()
    if path.is_dir():
        raise ValueError(f"{option}: {str(value)!r} is a directory, expected a file path")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option}: directory of {str(value)!r} does not exist")
    _probe_writable(parent, option)
    return path


# --- --results: resolved once, here ---------------------------------------------------------------------------------

class _ResultsDefault(str):
    """The default of ``--results`` as argparse holds it until the end of parsing (a string default goes through the
    option's ``type``, where it is resolved)."""


_RESULTS_DEFAULT = _ResultsDefault("$RGR_VERIFY_RESULTS or ~/.cache/rgr-verify/results")
_GIVEN = "_results_given"  # set on the namespace when --results is named on the command line


def _results_path(text: str) -> Path:
    if text is _RESULTS_DEFAULT:
        from ..runs.store import default_results_dir

        return default_results_dir()
    if not str(text).strip():
        raise argparse.ArgumentTypeError("--results must name a directory, got an empty string")
    return Path(text).expanduser()


class _ResultsAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, _GIVEN, True)


def results_given(args) -> bool:
    """Whether ``--results`` was named on the command line (else ``args.results`` is the default folder)."""
    return bool(getattr(args, _GIVEN, False))


def add_results(parser, *, help: str = "results directory") -> None:
    """``--results DIR``: the results store's folder; ``args.results`` is a Path, the default folder when absent."""
    parser.add_argument("--results", metavar="DIR", type=_results_path, default=_RESULTS_DEFAULT,
                        action=_ResultsAction, help=f"{help} (default: %(default)s)")


# --- the other shared options ----------------------------------------------------------------------------------------

def add_tier(parser, *, choices: tuple | None = ("quick", "full"), default: str = "quick", help: str = "tier") -> None:
    """``--tier TIER``: one of ``choices`` (checked here; None: a free label the command checks itself)."""
    def tier(text: str) -> str:
        if choices is not None and text not in choices:
            raise ValueError(f"--tier must be one of {', '.join(choices)}, got {text!r}")
        return text

    parser.add_argument("--tier", metavar="TIER" if choices is None else None, choices=choices,
                        type=_argument_type(tier), default=default, help=f"{help} (default: %(default)s)")


def add_only(parser, *, help: str = "comma-separated globs on claim ids or references") -> None:
    """``--only PATTERN``: claims selected by globs (checked by :func:`rgr_verify.claims.select_claims`)."""
    parser.add_argument("--only", metavar="PATTERN", default=None, help=help)


def add_paper(parser) -> None:
    """``--paper ID``: only claims concerning this paper (checked by :func:`rgr_verify.claims.select_claims`)."""
    parser.add_argument("--paper", metavar="ID", default=None,
                        help="only claims concerning this paper (2509.22840, 2502.05076), cross-paper ones included")


def add_jobs(parser) -> None:
    """``--jobs N``: worker processes, an integer in [1, 256]; None (absent): the number of CPU cores."""
    parser.add_argument("--jobs", metavar="N", type=_integer("--jobs", 1, 256), default=None,
                        help="worker processes (default: the number of CPU cores; 1 runs in this process)")


def add_seed(parser, *, default: int | None = None,
             help: str = "root seed (default: $RGR_VERIFY_SEED or the built-in one)") -> None:
    """``--seed N``: an integer in [0, 2**32 - 1]."""
    parser.add_argument("--seed", metavar="N", type=_integer("--seed", 0, SEED_MAX), default=default, help=help)


def add_device(parser, *, default: str | None = None, indexed: bool = False,
               help: str = "cpu or cuda (default: cuda when available)") -> None:
    """``--device DEVICE``: ``cpu`` or ``cuda`` (``cuda:N`` too when ``indexed``); whether CUDA is there is the
    command's check (a plan, a cluster's workers, may name a GPU this machine lacks)."""
    def device(text: str) -> str:
        if text == "cpu" or text == "cuda" or (indexed and text.startswith("cuda:") and text[5:].isdigit()):
            return text
        shown = "'cpu', 'cuda' or 'cuda:N'" if indexed else "'cpu' or 'cuda'"
        raise ValueError(f"--device must be {shown}, got {text!r}")

    parser.add_argument("--device", metavar="DEVICE" if indexed else None, choices=None if indexed else ("cpu", "cuda"),
                        type=_argument_type(device), default=default, help=help)


def add_json_path(parser, *, dest: str = "json_path", help: str = "also write the result as JSON here") -> None:
    """``--json PATH``: a file to write, in a writable folder (a Path; None when absent)."""
    parser.add_argument("--json", dest=dest, metavar="PATH", default=None,
                        type=_argument_type(lambda text: writable_file_target(text, "--json")), help=help)


def add_json_flag(parser, *, help: str = "print JSON instead of a table") -> None:
    """``--json``: print JSON (a flag)."""
    parser.add_argument("--json", action="store_true", help=help)


def add_threads(parser, *, help: str = "torch CPU threads (default 1)") -> None:
    """``--threads N``: torch CPU threads, an integer >= 1 (default 1)."""
    parser.add_argument("--threads", metavar="N", type=_integer("--threads", 1), default=1, help=help)


def _text_file(text: str) -> Path:
    path = Path(text).expanduser()
    try:
        path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"--paper-text: no such file: {text}") from None
    except IsADirectoryError:
        raise ValueError(f"--paper-text must be a text file, got the directory {text}") from None
    except UnicodeDecodeError:
        raise ValueError(f"--paper-text must be UTF-8 text: {text} is not") from None
    except OSError as exc:
        raise ValueError(f"--paper-text: cannot read {text}: {exc.strerror}") from None
    return path


def add_paper_text(parser, *, help: str = "the v3 text of the paper (UTF-8; default: this machine's, if any)") -> None:
    """``--paper-text FILE``: a readable UTF-8 text file (a Path; None when absent)."""
    parser.add_argument("--paper-text", metavar="FILE", type=_argument_type(_text_file), default=None, help=help)


def add_out(parser, *, file: bool = False, default: str | None = None, required: bool = False,
            help: str = "output directory") -> None:
    """``--out DIR`` (``--out FILE`` when ``file``): where the command writes, checked writable (a Path)."""
    check = writable_file_target if file else writable_dir_target
    parser.add_argument("--out", metavar="FILE" if file else "DIR", default=default, required=required,
                        type=_argument_type(lambda text: check(text, "--out")), help=help)


def add_max_waste(parser, *, help: str = "the engine's batch planning: largest padded cost of a batch over its "
                                         "runs' own cost (>= 1, default 4)") -> None:
    """``--max-waste X``: a real number >= 1 (default 4)."""
    parser.add_argument("--max-waste", metavar="X", type=_real("--max-waste", 1.0), default=4.0, help=help)


def add_unit_max_batch(parser, *, default: int | None = None, help: str = "most runs in a unit") -> None:
    """``--unit-max-batch N``: an integer >= 1."""
    parser.add_argument("--unit-max-batch", metavar="N", type=_integer("--unit-max-batch", 1), default=default,
                        help=help)


def add_workers(parser, *, default: int | None = None, help: str = "worker processes") -> None:
    """``--workers N``: an integer >= 1."""
    parser.add_argument("--workers", metavar="N", type=_integer("--workers", 1), default=default, help=help)


def add_stop_after(parser, *, help: str) -> None:
    """``--stop-after SECONDS``: a real number > 0 (None when absent)."""
    parser.add_argument("--stop-after", metavar="SECONDS", type=_real("--stop-after", 0.0, low_open=True),
                        default=None, help=help)


def add_replay_only(parser, *, help: str) -> None:
    """``--replay-only``: train nothing (a flag)."""
    parser.add_argument("--replay-only", action="store_true", help=help)


def add_evidence_dir(parser) -> None:
    """``--evidence DIR``: the evidence folder (None when absent: $RGR_VERIFY_EVIDENCE or evidence/)."""
    parser.add_argument("--evidence", metavar="DIR", default=None,
                        help="evidence folder (default: $RGR_VERIFY_EVIDENCE or evidence/)")


def add_m(parser, *, nargs=None, default=None, required: bool = False, help: str = "number of items m") -> None:
    """``--m M``: the number of items, an integer >= 1 (a command asks more where it needs more)."""
    parser.add_argument("--m", metavar="M", type=_integer("--m", 1), nargs=nargs, default=default, required=required,
                        help=help)


def add_d_model(parser, *, help: str = "embedding dimension d_model") -> None:
    """``--d-model D``: the embedding dimension, an integer >= 1 (``args.d_model``)."""
    parser.add_argument("--d-model", metavar="D", dest="d_model", type=_integer("--d-model", 1), default=None,
                        help=help)


def add_heads(parser, *, help: str = "number of heads h") -> None:
    """``--heads H``: the number of heads, an integer >= 1."""
    parser.add_argument("--heads", metavar="H", type=_integer("--heads", 1), default=None, help=help)


def add_d_k(parser, *, help: str = "per-head width d_k") -> None:
    """``--d-k D_K``: a head's width, an integer >= 1 (``args.d_k``)."""
    parser.add_argument("--d-k", metavar="D_K", dest="d_k", type=_integer("--d-k", 1), default=None, help=help)
