"""Subcommands of ``rgr-verify``: one module per command (see :mod:`rgr_verify.cli`)."""
