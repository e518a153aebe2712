"""The ``k10s`` command line. The only place where errors become messages and exit codes.

Exit codes: 0 ran (whatever it found), 1 a finding at or above ``--fail-on`` or a failed
check (``verify``), 2 unusable input (not a bundle, unknown format, bad arguments),
130 interrupted.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from k10s_forensics import __version__
from k10s_forensics.errors import K10sError

#: Modules that add commands to the group; each defines ``COMMANDS`` (click commands).
COMMAND_MODULES: tuple[str, ...] = (
    "k10s_forensics.commands.bundle_cmds",
    "k10s_forensics.commands.simulate_cmd",
    "k10s_forensics.commands.import_cmd",
    "k10s_forensics.commands.analyze_cmds",
    "k10s_forensics.commands.report_cmd",
    "k10s_forensics.commands.capture_cmds",
    "k10s_forensics.commands.sharing_cmds",
    "k10s_forensics.commands.serve_cmd",
    "k10s_forensics.commands.view_cmd",
    "k10s_forensics.commands.fleet_cmds",
    "k10s_forensics.commands.diff_cmd",
    "k10s_forensics.commands.watch_cmd",
)

#: Command name -> the module that defines it, so ``k10s analyze`` imports only the analyze
#: module (not capture, serve or the report renderer). A command missing here still works
#: (every module is then imported); a test fails when this index and the modules disagree.
COMMAND_INDEX: dict[str, str] = {
    "rebuild": "k10s_forensics.commands.bundle_cmds",
    "sql": "k10s_forensics.commands.bundle_cmds",
    "shell": "k10s_forensics.commands.bundle_cmds",
    "simulate": "k10s_forensics.commands.simulate_cmd",
    "import-logs": "k10s_forensics.commands.import_cmd",
    "analyze": "k10s_forensics.commands.analyze_cmds",
    "rules": "k10s_forensics.commands.analyze_cmds",
    "report": "k10s_forensics.commands.report_cmd",
    "capture": "k10s_forensics.commands.capture_cmds",
    "pack": "k10s_forensics.commands.sharing_cmds",
    "verify": "k10s_forensics.commands.sharing_cmds",
    "redact": "k10s_forensics.commands.sharing_cmds",
    "serve": "k10s_forensics.commands.serve_cmd",
    "view": "k10s_forensics.commands.view_cmd",
    "fleet": "k10s_forensics.commands.fleet_cmds",
    "diff": "k10s_forensics.commands.diff_cmd",
    "watch": "k10s_forensics.commands.watch_cmd",
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is asked for."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()

    def _load(self, module_name: str) -> None:
        if module_name in self._loaded:
            return
        self._loaded.add(module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return  # a command module not built yet
            raise
        for command in module.COMMANDS:
            self.add_command(command)

    def load_all(self) -> dict[str, click.Command]:
        """Import every command module; the full name -> command mapping."""
        for name in COMMAND_MODULES:
            self._load(name)
        return self.commands

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_INDEX.get(cmd_name)
        if module is not None:
            self._load(module)
        if cmd_name not in self.commands:
            self.load_all()
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.load_all())


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="k10s")
@click.option("--debug", is_flag=True, envvar="K10S_DEBUG", help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """k10s forensics: find the rank, GPU and node behind a distributed-training incident.

    \b
    capture   collect a bundle from a live cluster (read-only)
    analyze   name the culprit rank, GPU, node and cause
    report    write a self-contained HTML postmortem
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the group, turn errors into one line and an exit code."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:]) or os.environ.get("K10S_DEBUG")
    try:
        code = cli.main(args=argv, prog_name="k10s", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("k10s: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if isinstance(exc, click.UsageError) else exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except K10sError as exc:
        if debug:
            raise
        click.echo(f"k10s: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("k10s: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # a bug: still one line unless --debug
        if debug:
            raise
        click.echo(f"k10s: internal error: {exc.__class__.__name__}: {exc} (run with --debug for the traceback)", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


__all__ = ["cli", "main", "COMMAND_INDEX", "COMMAND_MODULES"]
