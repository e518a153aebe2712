"""``k10s rebuild``, ``k10s sql``, ``k10s shell``: working with a bundle's tables."""

from __future__ import annotations

import shutil
import subprocess
import sys

import click

from k10s_forensics import output
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.store.derived import record_of
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.errors import BundleError


@click.command("rebuild")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Parser processes (default: every core). Output is the same for any value.")
def rebuild_cmd(bundle_path: str, quiet: bool, jobs: int | None) -> None:
    """Re-derive tables/ from raw/ with the current parsers (idempotent)."""
    from k10s_forensics.rebuild.pool import rebuild_parallel

    bundle = Bundle.open(bundle_path)
    issues = rebuild_parallel(bundle, jobs or 0)
    if quiet:
        return
    names = bundle.table_names()
    click.echo(f"rebuilt {len(names)} tables in {bundle.tables_dir} (manifest.json and raw/ untouched)")
    if issues.total():
        click.echo(f"{issues.total()} raw rows or lines could not be parsed (see table parse_errors):")
        for b in issues.buckets():
            click.echo(f"  {b.source}: {b.count} x {b.reason}")


@click.command("sql")
@click.argument("bundle_path", metavar="BUNDLE")
@click.argument("query")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table", show_default=True)
def sql_cmd(bundle_path: str, query: str, fmt: str) -> None:
    """Run SQL on the bundle: every derived table is a view by its name (raw ones as raw_<name>)."""
    bundle = Bundle.open(bundle_path)
    con = connect(bundle)
    for line in record_of(bundle).get("damage") or []:
        click.echo(f"k10s: warning: {line}", err=True)
    result = run_sql(con, query, origin="query")
    if result is None:
        return
    text = {"table": output.to_text, "csv": output.to_csv, "json": output.to_json}[fmt](result)
    click.echo(text.rstrip("\n"))


@click.command("shell")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--unsafe", is_flag=True, help="Open an unlocked database (COPY, ATTACH, INSTALL, reading other files allowed).")
def shell_cmd(bundle_path: str, unsafe: bool) -> None:
    """Interactive SQL on the bundle (the duckdb CLI with --unsafe when installed, else a simple prompt).

    The database is read-only like `k10s sql` unless --unsafe is given.
    """
    bundle = Bundle.open(bundle_path)
    con = connect(bundle, locked=not unsafe)
    views = [r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
    duckdb_cli = shutil.which("duckdb")
    if unsafe and duckdb_cli and sys.stdin.isatty():
        rows = con.sql("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()
        init = " ".join(sql.rstrip(";") + ";" for _, sql in rows)
        subprocess.run([duckdb_cli, "-cmd", init], check=False)
        return
    click.echo(f"k10s shell on {bundle.path}: tables {', '.join(views)}. End statements with ';', quit with .quit or EOF.")
    buffer = ""
    while True:
        try:
            line = input("k10s> " if not buffer else "  ...> ")
        except EOFError:
            break
        if line.strip() in (".quit", ".exit", "\\q"):
            break
        buffer += line + "\n"
        if not buffer.strip().endswith(";"):
            continue
        statement, buffer = buffer, ""
        try:
            result = run_sql(con, statement, origin="shell", read_only=not unsafe)
        except BundleError:
            raise
        except Exception as exc:  # keep the session alive
            click.echo(f"error: {exc}")
            continue
        if result is not None:
            click.echo(output.to_text(result))


COMMANDS = (rebuild_cmd, sql_cmd, shell_cmd)
