"""The `conda_subcommands` hook. conda imports this module on every run, so it stays tiny."""

from __future__ import annotations

from conda.plugins import hookimpl
from conda.plugins.types import CondaSubcommand


def _mcp(args: tuple[str, ...]) -> int:
    from .launch import launch

    return launch(args)


@hookimpl
def conda_subcommands():
    # No configure_parser: conda then passes every argument after `mcp` on untouched (its
    # greedy subparser), so conda-mcp's own options reach it as typed.
    yield CondaSubcommand(
        name="mcp",
        summary="Serve this conda to AI agents over MCP (runs conda-mcp).",
        action=_mcp,
    )
