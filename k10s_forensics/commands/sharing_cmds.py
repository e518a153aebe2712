"""``k10s pack``, ``k10s verify``, ``k10s redact``: sharing bundles with support."""

from __future__ import annotations

import sys

import click

from k10s_forensics.errors import RedactionError


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n} B"  # pragma: no cover


@click.command("pack")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False), help="Archive to write (default: BUNDLE.tar.gz beside the bundle).")
@click.option("--level", "level", type=click.IntRange(0, 9), default=6, show_default=True, help="gzip compression level.")
def pack_cmd(bundle_path: str, out: str | None, level: int) -> None:
    """Pack a bundle folder into one reproducible .tar.gz (streamed, checksums checked)."""
    from k10s_forensics.sharing.pack import pack

    result = pack(bundle_path, out, level=level)
    click.echo(f"packed {len(result.members)} files ({_human(result.bytes_in)}) into {result.path} ({_human(result.bytes_out)})")
    click.echo(f"sha256 {result.sha256}")
    if result.skipped:
        click.echo(f"not packed (not listed in the manifest): {', '.join(result.skipped)}", err=True)


@click.command("verify")
@click.argument("bundle_path", metavar="BUNDLE_OR_ARCHIVE")
@click.option("--quiet", "-q", is_flag=True, help="Print only problems.")
def verify_cmd(bundle_path: str, quiet: bool) -> None:
    """Check a bundle or archive: format, manifest, every checksum, every Parquet file.

    Exit code 0 when whole, 1 when any problem was found (each is named).
    """
    from k10s_forensics.sharing.verify import summary_line, verify

    result = verify(bundle_path)
    manifest = result.manifest or {}
    if not quiet and manifest:
        state = "complete" if manifest.get("complete") else "INCOMPLETE capture"
        click.echo(f"{bundle_path}: k10s bundle v{manifest.get('format_version')}, created {manifest.get('created_at')}, {state}")
        click.echo(f"  {summary_line(result)}")
        red = manifest.get("redaction")
        if isinstance(red, dict):
            counts = ", ".join(f"{v} {k}" for k, v in (red.get("replaced") or {}).items() if v)
            click.echo(f"  redacted ({red.get('level')}, key id {red.get('key_id') or '---'}): {counts or 'nothing found to replace'}")
        else:
            click.echo("  not redacted")
        click.echo(f"  evidence (manifest.json, raw/): {'OK' if not result.problems else f'{len(result.problems)} problem(s)'}")
        click.echo(f"  derived (tables/): {result.derived_state}" + (f", {len(result.derived_problems)} problem(s)" if result.derived_problems else ""))
    for warning in result.warnings:
        click.echo(f"  warning: {warning}", err=True)
    for problem in result.problems:
        click.echo(f"PROBLEM {problem}")
    for problem in result.derived_problems:
        click.echo(f"PROBLEM derived {problem}")
    if result.problems:
        click.echo(f"{len(result.problems)} problem(s): {bundle_path} is not whole; do not trust it as evidence", err=True)
        sys.exit(1)
    if result.derived_problems:
        click.echo(f"{len(result.derived_problems)} problem(s) in the derived tables (the evidence is whole): run k10s rebuild {bundle_path}", err=True)
        sys.exit(1)
    if not quiet:
        click.echo("OK")


@click.command("redact")
@click.argument("bundle_path", metavar="BUNDLE", required=False)
@click.option("-o", "--output", "out", type=click.Path(), help="New bundle folder (or OUT.tar.gz to pack it).")
@click.option("--level", type=click.Choice(["standard", "strict"]), default="standard", show_default=True,
              help="standard: secrets; strict: also names, IPs, hostnames, registries, label values.")
@click.option("--key-file", type=click.Path(dir_okay=False), help="HMAC key for strict tokens (created if missing; default ~/.config/k10s/redaction.key).")
@click.option("--reveal", "reveal_text", metavar="TOKEN_OR_TEXT", help="Map tokens back to original values with the key and its map.")
@click.option("--tables/--no-tables", "tables", default=None, help="Re-derive tables in the output (default: when the input has tables).")
@click.option("--quiet", "-q", is_flag=True)
def redact_cmd(bundle_path: str | None, out: str | None, level: str, key_file: str | None, reveal_text: str | None,
               tables: bool | None, quiet: bool) -> None:
    """Write a redacted copy of a bundle, or --reveal tokens with your key.

    \b
    k10s redact BUNDLE -o OUT                     secrets only
    k10s redact BUNDLE -o OUT --level strict --key-file ~/k10s.key
    k10s redact --reveal pod-3fa2c1d0 --key-file ~/k10s.key
    """
    from k10s_forensics.sharing.redact import redact, reveal

    if reveal_text is not None:
        text, count = reveal(reveal_text, key_file)
        click.echo(text)
        if count == 0:
            click.echo("k10s: no token in that text is known to this key (wrong key file, or its .map.jsonl is missing)", err=True)
            sys.exit(1)
        return
    if not bundle_path or not out:
        raise click.UsageError("redact needs BUNDLE and -o OUT (or --reveal TOKEN)")
    say = (lambda _m: None) if quiet else (lambda m: click.echo(f"  {m}", err=True))
    try:
        result = redact(bundle_path, out, level=level, key_file=key_file, rebuild_tables=tables, progress=say)
    except RedactionError:
        raise
    counts = ", ".join(f"{v} {k}" for k, v in result.replaced.items() if v) or "nothing found to replace"
    click.echo(f"redacted ({result.level}) -> {result.path}: {counts}")
    if result.secrets_by_kind:
        click.echo("  secrets: " + ", ".join(f"{v} {k}" for k, v in result.secrets_by_kind.items()))
    for item in result.dropped:
        click.echo(f"  dropped {item}", err=True)
    if result.key_file is not None:
        made = " (created now)" if result.key_created else ""
        click.echo(f"  key {result.key_file}{made}, key id {result.key_id}; keep it and {result.key_file.name}.map.jsonl private, never send them")
    click.echo(f"  check it before sending: k10s verify {result.path}")


COMMANDS = (pack_cmd, verify_cmd, redact_cmd)
