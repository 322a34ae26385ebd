"""The CLI's usage error, in a module of its own: the output policy (``_atomic``) and the
command modules import it without importing ``app.cli``, which imports them."""

from __future__ import annotations


class CliError(Exception):
    """A usage error found after parsing (bad combination of options, unwritable file)."""
