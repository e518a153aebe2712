"""Generate docs/cli.md from the commands' own help (``python -m k10s_forensics.clidoc [--check]``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"

INTRO = """# k10s command line

Generated from the commands' `--help` by `python -m k10s_forensics.clidoc`; a test fails when it
is out of date.

Exit codes: `0` the command ran (whatever `analyze` found), `1` a finding at or above
`--fail-on`, a failed `verify`, or a query error, `2` unusable input (not a bundle, unknown
format version, bad arguments), `130` interrupted. Errors are one line on stderr, prefixed
`k10s: error:`; `--debug` (or `K10S_DEBUG=1`) shows the traceback instead.
"""


def render() -> str:
    from k10s_forensics.cli import cli

    parts = [INTRO]
    # The same settings the real group uses (-h/--help): help output must not depend on
    # whether the group already ran in this process (click caches the help option).
    settings = {"terminal_width": 100, "max_content_width": 100, "help_option_names": ["-h", "--help"]}
    with click.Context(cli, info_name="k10s", **settings) as ctx:
        parts.append("## k10s\n\n```\n" + cli.get_help(ctx).rstrip() + "\n```\n")
        commands = cli.load_all()
        for name in sorted(commands):
            command = commands[name]
            with click.Context(command, info_name=f"k10s {name}", **settings) as sub:
                parts.append(f"## k10s {name}\n\n```\n" + command.get_help(sub).rstrip() + "\n```\n")
                for child in sorted(getattr(command, "commands", {})):  # a group's subcommands
                    leaf = command.commands[child]
                    with click.Context(leaf, parent=sub, info_name=child, **settings) as inner:
                        parts.append(f"### k10s {name} {child}\n\n```\n" + leaf.get_help(inner).rstrip() + "\n```\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    from k10s_forensics.docgen import sync

    return sync(DOC, render(), argv, "k10s_forensics.clidoc")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
