"""``k10s redact``: a new bundle without secrets (standard) and without identities (strict).

    standard  secrets are replaced by ``[REDACTED:<kind>]`` wherever they hide
    strict    also nodes, pods, namespaces, jobs, hostnames, IPs, registries and label
              values are replaced by keyed pseudonyms, the same everywhere

The input is never modified. The output is written to a temporary folder beside the
target and renamed into place only when complete (or packed, when the target ends with
``.tar.gz``), so a failed run leaves nothing that looks like a redacted bundle. Derived
tables are re-derived from the redacted raw layer (see tables.py). The manifest records
the level, the key id and how many values of each kind were replaced (never the values).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k10s_forensics import __version__
from k10s_forensics.store.bundle import MANIFEST, RAW_NAMES, Bundle, iso, utcnow
from k10s_forensics.errors import BundleError, RedactionError
from k10s_forensics.sharing.redact.bodies import Redactor
from k10s_forensics.sharing.redact.columns import ColumnRedactor
from k10s_forensics.sharing.redact.keys import append_map, default_key_file, load_key, load_map, map_path
from k10s_forensics.sharing.redact.pseudonym import Pseudonymizer, key_id
from k10s_forensics.sharing.redact.replace import TextReplacer
from k10s_forensics.sharing.redact.secrets import SecretScanner
from k10s_forensics.sharing.redact.stream import collect_vocabulary, rewrite_raw
from k10s_forensics.sharing.redact.tables import rederive
from k10s_forensics.sharing.redact.vocab import Vocabulary

LEVELS = ("standard", "strict")


@dataclass
class RedactResult:
    """What a redaction wrote and replaced."""

    path: Path
    level: str
    key_file: Path | None = None
    key_created: bool = False
    key_id: str | None = None
    replaced: dict[str, int] = field(default_factory=dict)
    occurrences: dict[str, int] = field(default_factory=dict)
    secrets_by_kind: dict[str, int] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    rows: int = 0
    bytes_in: int = 0
    map_added: int = 0
    tables_rebuilt: bool = False


def redact(
    bundle_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    level: str = "standard",
    key_file: str | os.PathLike[str] | None = None,
    rebuild_tables: bool | None = None,
    progress: Callable[[str], None] | None = None,
) -> RedactResult:
    """Write a redacted copy of ``bundle_path`` to ``out`` (a folder, or ``*.tar.gz``)."""
    if level not in LEVELS:
        raise RedactionError(f"unknown redaction level {level!r} (use one of {', '.join(LEVELS)})")
    say = progress or (lambda _msg: None)
    src = Bundle.open(bundle_path)
    target = Path(out)
    to_archive = target.name.endswith((".tar.gz", ".tgz"))
    _check_target(src, target, to_archive)
    result = RedactResult(target, level)
    pseudo: Pseudonymizer | None = None
    known: dict[str, tuple[str, str]] = {}
    key = b""
    if level == "strict":
        kf = Path(key_file).expanduser() if key_file else default_key_file()
        _check_key_location(kf, src.path, target)
        key, result.key_created = load_key(kf, create=True)
        result.key_file, result.key_id = kf, key_id(key)
        known = load_map(kf, key)
        pseudo = Pseudonymizer(key, known={t: v for t, (v, _k) in known.items()})

    scanner = SecretScanner()
    replacer = None
    if pseudo is not None:
        say("collecting names to pseudonymise")
        vocab = Vocabulary()
        collect_vocabulary(src.path / "raw", vocab)
        _manifest_vocabulary(src.manifest, vocab)
        replacer = TextReplacer(pseudo, vocab.finish())
    redactor = Redactor(scanner, replacer)
    columns = ColumnRedactor(redactor)

    for left in sorted(target.parent.glob(f".{target.name}.*.partial")):  # a redact killed earlier
        say(f"removing {left.name}, left unfinished by an earlier redact that was interrupted")
        shutil.rmtree(left, ignore_errors=True)
    work = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.partial"
    work_bundle = work / "bundle" if to_archive else work
    try:
        (work_bundle / "raw").mkdir(parents=True)
        listed = src.manifest.get("files") if isinstance(src.manifest.get("files"), dict) else {}
        for rel in sorted(listed):
            if not (rel.startswith("raw/") and rel.removeprefix("raw/").removesuffix(".parquet") in RAW_NAMES) and not rel.startswith("tables/"):
                result.dropped.append(f"{rel}: not a raw or derived file (cannot be redacted safely)")
        for name in RAW_NAMES:
            path = src.raw_path(name)
            if not path.is_file():
                continue
            say(f"redacting raw/{name}.parquet")
            result.bytes_in += path.stat().st_size
            dst = work_bundle / "raw" / f"{name}.parquet"
            try:
                result.rows += rewrite_raw(path, dst, name, redactor, columns=columns)
            except Exception as exc:  # never ship what could not be rewritten
                dst.unlink(missing_ok=True)
                result.dropped.append(f"raw/{name}.parquet: unreadable, dropped ({exc.__class__.__name__}: {str(exc)[:120]})")
        manifest = redactor.manifest(src.manifest)
        had_tables = bool(src.table_names())
        result.tables_rebuilt = had_tables if rebuild_tables is None else rebuild_tables
        if not result.tables_rebuilt:
            for key_name in ("parser_version", "tables_built_at"):
                manifest.pop(key_name, None)
        _fill_counts(result, scanner, replacer)
        manifest["redaction"] = _redaction_block(result, src.manifest, redactor)
        manifest["files"] = {}
        bundle = Bundle(work_bundle, manifest)
        bundle.refresh_checksums()
        bundle.save_manifest()
        if result.tables_rebuilt:
            say("re-deriving tables from the redacted raw layer")
            rederive(bundle)
        if to_archive:
            from k10s_forensics.sharing.pack import pack

            pack(work_bundle, target)
        else:
            os.replace(work, target)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    if to_archive:
        shutil.rmtree(work, ignore_errors=True)
    if pseudo is not None and result.key_file is not None:
        result.map_added = append_map(result.key_file, key, pseudo.issued, known)
    return result


def _check_target(src: Bundle, target: Path, to_archive: bool) -> None:
    if target.exists() and (target.is_file() or any(target.iterdir())):
        raise RedactionError(f"{target}: already exists (redact writes a new bundle; choose another -o)")
    t, s = target.resolve(), src.path.resolve()
    if t == s or t.is_relative_to(s) or s.is_relative_to(t):
        raise RedactionError(f"{target}: the redacted bundle must be outside the original one")
    if target.exists():
        target.rmdir()


def _check_key_location(key_file: Path, src: Path, target: Path) -> None:
    k = key_file.resolve()
    for folder in (src.resolve(), target.resolve()):
        if k.is_relative_to(folder):
            raise RedactionError(f"{key_file}: the key must be kept outside the bundles (it would reveal every token)")


def _manifest_vocabulary(manifest: dict[str, Any], vocab: Vocabulary) -> None:
    cluster = manifest.get("cluster") if isinstance(manifest.get("cluster"), dict) else {}
    vocab.add(cluster.get("context"), "cluster")
    vocab.add(cluster.get("name"), "cluster")
    vocab.add_url(cluster.get("server"))
    scope = manifest.get("scope") if isinstance(manifest.get("scope"), dict) else {}
    for ns in scope.get("namespaces") or []:
        vocab.add(ns, "namespace")
    for job in scope.get("jobs") or []:
        if isinstance(job, str) and "/" in job:
            ns, _, name = job.partition("/")
            vocab.add(ns, "namespace")
            vocab.add(name, "job")
        else:
            vocab.add(job, "job")


def _fill_counts(result: RedactResult, scanner: SecretScanner, replacer: TextReplacer | None) -> None:
    result.secrets_by_kind = dict(sorted(scanner.counts.items()))
    result.replaced = {"secret": sum(scanner.counts.values())}
    result.occurrences = {"secret": sum(scanner.counts.values())}
    if replacer is not None:
        result.replaced.update(replacer.distinct_counts())
        result.occurrences.update(dict(sorted(replacer.counts.items())))


def _redaction_block(result: RedactResult, source_manifest: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    block: dict[str, Any] = {
        "level": result.level,
        "key_id": result.key_id,
        "redacted_at": iso(utcnow()),
        "tool_version": __version__,
        "replaced": result.replaced,
        "occurrences": result.occurrences,
        "secrets_by_kind": result.secrets_by_kind,
        "dropped": result.dropped,
        "unparsed_object_bodies": redactor.unparsed_bodies,
    }
    previous = source_manifest.get("redaction")
    if isinstance(previous, dict):
        block["previous"] = {k: previous.get(k) for k in ("level", "key_id", "redacted_at")}
    return block


def reveal(text: str, key_file: str | os.PathLike[str] | None = None) -> tuple[str, int]:
    """Map tokens in ``text`` back to the original values; returns (text, tokens revealed)."""
    from k10s_forensics.sharing.redact.revealer import reveal_text

    kf = Path(key_file).expanduser() if key_file else default_key_file()
    key, _ = load_key(kf, create=False)
    return reveal_text(text, key, load_map(kf, key))


__all__ = ["redact", "reveal", "RedactResult", "LEVELS", "map_path", "MANIFEST", "BundleError"]
