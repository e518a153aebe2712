"""The HTML postmortem report: one self-contained file, opens offline.

``render_report(bundle, analysis, out_path)`` runs every section of ``SECTIONS`` (one
module each: ``build(con, bundle, analysis) -> <Section>Context``, data from named SQL in
``reports/sql``), renders ``templates/<section>.html.j2`` with Jinja (autoescape,
StrictUndefined), and writes one HTML file holding plotly.js once, the CSS, and each
figure as escaped JSON. The page's Content-Security-Policy allows no request at all and
runs only the report's own scripts (nonce), so cluster text can never load or run
anything.

Add a section: ``reports/<name>.py`` with ``build`` and a context dataclass, a template
``templates/<name>.html.j2``, and one line in ``SECTIONS``; the tests pick it up.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import importlib
import os
import secrets
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import jinja2

from k10s_forensics import __version__
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle
from k10s_forensics.engine import connect
from k10s_forensics.errors import K10sError, ReportError
from k10s_forensics.store.tables import TABLES_BY_NAME

from .common import Absent, Plot, fmt_ts


@dataclass(frozen=True)
class SectionFailed:
    """A section whose queries failed on this bundle: the page says why and goes on."""

    reason: str


@dataclass(frozen=True)
class Section:
    """One section of the report, in page order."""

    id: str
    title: str
    module: str

    @property
    def template(self) -> str:
        return f"{self.id}.html.j2"


SECTIONS: tuple[Section, ...] = (
    Section("header", "Overview", "header"),
    Section("findings", "Findings", "findings"),
    Section("changes", "What changed since the baseline", "changes"),
    Section("fleet", "Fleet", "fleet"),
    Section("jobs", "Jobs", "jobs"),
    Section("timeline", "Timeline", "timeline"),
    Section("queues", "Queues", "queues"),
    Section("appendix", "Appendix", "appendix"),
)


def section_module(section: Section) -> ModuleType:
    """The module that builds ``section``."""
    return importlib.import_module(f"{__name__}.{section.module}")


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__name__, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.tests["absent"] = lambda value: isinstance(value, Absent)
    env.tests["failed"] = lambda value: isinstance(value, SectionFailed)
    return env


@lru_cache(maxsize=None)
def _static(name: str) -> str:
    return resources.files(__name__).joinpath("static", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """plotly.js from the installed plotly package (embedded once, never fetched)."""
    from plotly.offline import get_plotlyjs

    js = get_plotlyjs()
    if "</script" in js.lower():
        raise ReportError("the installed plotly.js contains '</script' and cannot be inlined safely")
    return js


def _ensure_views(con: duckdb.DuckDBPyConnection) -> None:
    """Every derived and raw table is a view, empty with its schema when its file is absent."""
    existing = {r[0] for r in con.sql("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    wanted = {name: t.schema for name, t in TABLES_BY_NAME.items()}
    wanted.update({f"raw_{name}": schema for name, schema in RAW_SCHEMAS.items()})
    for name, schema in wanted.items():
        if name not in existing:
            con.register(f"_k10s_report_empty_{name}", schema.empty_table())
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "_k10s_report_empty_{name}"')


def run_analysis(bundle: Bundle, threads: int | None = None) -> dict[str, Any]:
    """``k10s analyze`` of the bundle, or ``{"error": reason}`` when it cannot run."""
    try:
        runner = importlib.import_module("k10s_forensics.analyze.runner")
    except ImportError as exc:
        return {"error": f"the analysis is not available in this k10s ({exc})"}
    try:
        return runner.analyze(bundle, threads=threads)
    except K10sError as exc:
        return {"error": f"the analysis failed: {exc}"}


def build_contexts(bundle: Bundle, analysis: dict[str, Any] | None, threads: int | None = None) -> dict[str, Any]:
    """Every section's context, by section id (a section that fails shows why, not a trace)."""
    con = connect(bundle, threads=threads)
    try:
        _ensure_views(con)
        contexts: dict[str, Any] = {}
        for section in SECTIONS:
            try:
                contexts[section.id] = section_module(section).build(con, bundle, analysis)
            except (K10sError, duckdb.Error) as exc:
                contexts[section.id] = SectionFailed(f"this section could not be built from this bundle: {exc}")
    finally:
        con.close()
    if not isinstance(contexts["findings"], SectionFailed):
        section_module(SECTIONS[1]).resolve_links(contexts["findings"], anchors(contexts))
    return contexts


def anchors(contexts: dict[str, Any]) -> set[str]:
    """Every HTML id the page will hold (sections, plots, jobs, findings)."""
    found = {s.id for s in SECTIONS}

    def walk(value: Any) -> None:
        if isinstance(value, Plot):
            found.add(value.anchor)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            if isinstance(getattr(value, "anchor", None), str):
                found.add(value.anchor)
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    for ctx in contexts.values():
        walk(ctx)
    return found


def generated_at() -> dt.datetime:
    """Now, or ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) when it is set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch:
        return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    try:
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise ReportError(f"SOURCE_DATE_EPOCH must be whole seconds since 1970 (got {epoch[:40]!r})") from None


def content_nonce(page: str, placeholder: str) -> str:
    """The page with ``placeholder`` replaced by a nonce derived from the page itself.

    The same bundle gives the same bytes, and no cluster text can know the nonce: it would
    have to contain the hash of a page that contains it. The placeholder is random per
    render, so no cluster text can contain it either.
    """
    digest = hashlib.sha256(page.replace(placeholder, "").encode("utf-8")).digest()
    return page.replace(placeholder, base64.urlsafe_b64encode(digest[:18]).decode("ascii"))


def render_html(bundle: Bundle, analysis: dict[str, Any] | None, threads: int | None = None) -> str:
    """The report page as text: the same bytes for the same bundle and analysis (with
    ``SOURCE_DATE_EPOCH`` set, else only the footer's time differs)."""
    contexts = build_contexts(bundle, analysis, threads)
    page = _environment().get_template("base.html.j2")
    placeholder = "k10s-nonce-" + secrets.token_hex(16)
    return content_nonce(page.render(
        sections=SECTIONS,
        nonce=placeholder,
        version=__version__,
        generated_at=fmt_ts(generated_at()),
        bundle_path=str(bundle.path),
        css=_static("report.css"),
        loader_js=_static("report.js"),
        plotlyjs=plotly_js(),
        contexts=contexts,
        **contexts,
    ), placeholder)


def render_report(bundle: Bundle | str | os.PathLike[str], analysis: dict[str, Any] | None = None, out_path: str | os.PathLike[str] = "report.html",
                  threads: int | None = None) -> Path:
    """Write the self-contained HTML report of ``bundle`` to ``out_path``.

    Args:
        bundle: an opened ``Bundle`` or its path (tables are rebuilt when missing/stale).
        analysis: the ``k10s analyze --format json`` dict; ``None`` runs the analysis here.
        out_path: the HTML file to write (its folder must exist).
        threads: DuckDB threads (default: every core; the page is the same for any number).

    Returns:
        The path written.

    Raises:
        BundleError: the bundle is unusable.
        ReportError: the file cannot be written.
    """
    if not isinstance(bundle, Bundle):
        bundle = Bundle.open(bundle)
    if analysis is None:
        analysis = run_analysis(bundle, threads)
    return write_page(render_html(bundle, analysis, threads), out_path)


def write_page(html: str, out_path: str | os.PathLike[str]) -> Path:
    """Write a page atomically (temporary file, then rename); ReportError when it cannot."""
    out = Path(out_path)
    if not out.parent.is_dir():
        raise ReportError(f"{out}: folder {out.parent} does not exist")
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"{out}: cannot write the report ({exc.strerror or exc})") from None
    return out


__all__ = ["render_report", "write_page", "render_html", "build_contexts", "run_analysis", "SECTIONS", "Section", "SectionFailed", "plotly_js"]
