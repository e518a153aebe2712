"""Helpers for the report tests: sample-bundle copies, hostile-text bundles, HTML parsing."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import Bundle

REPO = Path(__file__).resolve().parents[1]
SAMPLE_BUNDLES = REPO / "sample-bundles"

#: Markup that must stay text: each sets window.__pwned if it ever runs.
PAYLOAD_NAME = "</script><script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>"
PAYLOAD_LABEL = "<script>window.__pwned=3</script>"
PAYLOAD_ANNOTATION = "</script><img src=x onerror=window.__pwned=4>"
PAYLOAD_EVENT = "<img src=x onerror=window.__pwned=5><!--"
PAYLOAD_LOG = "<script>window.__pwned=6</script>"
ALL_PAYLOADS = (PAYLOAD_NAME, PAYLOAD_LABEL, PAYLOAD_ANNOTATION, PAYLOAD_EVENT, PAYLOAD_LOG)


def sample_names() -> list[str]:
    """Every sample bundle shipped in sample-bundles/."""
    if not SAMPLE_BUNDLES.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_BUNDLES.iterdir() if (p / "manifest.json").is_file())


def truth(name: str) -> dict:
    """The ground truth of a sample bundle."""
    return json.loads((SAMPLE_BUNDLES / f"{name}.truth.json").read_text())


def copy_sample(name: str, dest: Path) -> Path:
    """A private copy (rebuilding tables must not write into the repository)."""
    out = dest / name
    shutil.copytree(SAMPLE_BUNDLES / name, out, ignore=shutil.ignore_patterns("tables"))
    return out


def _replace_all(table: pa.Table, old: str, new: str) -> pa.Table:
    cols = []
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_string(col.type):
            col = pc.replace_substring(col, old, new)
        cols.append(col)
    return pa.Table.from_arrays(cols, names=table.column_names)


def _edit_objects(table: pa.Table) -> pa.Table:
    bodies = []
    for kind, body in zip(table.column("kind").to_pylist(), table.column("body").to_pylist()):
        obj = json.loads(body)
        if kind == "Pod":
            meta = obj.setdefault("metadata", {})
            meta.setdefault("labels", {})["xss"] = PAYLOAD_LABEL
            meta.setdefault("annotations", {})["note"] = PAYLOAD_ANNOTATION
        if kind == "Event":
            obj["message"] = (obj.get("message") or obj.get("note") or "") + " " + PAYLOAD_EVENT
            if "note" in obj:
                obj["note"] = obj["message"]
            obj["type"] = "Warning"
        bodies.append(json.dumps(obj))
    return table.set_column(table.column_names.index("body"), "body", pa.array(bodies, pa.string()))


def hostile_bundle(dest: Path, base: str = "oom-crashloop") -> tuple[Path, str]:
    """A copy of a sample bundle whose job/pod names, labels, annotations, event messages and
    log lines carry markup payloads. Returns (bundle path, the hostile job name stem)."""
    path = copy_sample(base, dest)
    stem = truth(base)["job"].split("/", 1)[1]
    hostile = stem.split("-")[0] + PAYLOAD_NAME
    for raw in sorted((path / "raw").glob("*.parquet")):
        table = _replace_all(pq.read_table(raw), stem, hostile)
        if raw.stem == "objects":
            table = _edit_objects(table)
        if raw.stem == "logs":
            table = _replace_all(table, "out of memory.", "out of memory. " + PAYLOAD_LOG)
        pq.write_table(table, raw, compression="zstd")
    bundle = Bundle.open(path)
    bundle.refresh_checksums()
    bundle.save_manifest()
    return path, hostile


def hostile_analysis(job: str) -> dict:
    """An analysis dict whose every text field is markup."""
    return {
        "bundle": {"path": "x", "window": {"start": None, "end": None}, "complete": True},
        "findings": [{
            "rule": "oom-cascade" + PAYLOAD_LABEL, "severity": "critical", "title": "Title " + PAYLOAD_NAME,
            "summary": "Summary " + PAYLOAD_EVENT, "job": job, "ranks": [5], "pods": [PAYLOAD_ANNOTATION],
            "nodes": [PAYLOAD_LOG], "gpus": ["GPU-" + PAYLOAD_LABEL], "cause": "cuda-oom" + PAYLOAD_NAME,
            "started_at": "2026-05-26T17:17:30Z" + PAYLOAD_LOG, "ended_at": None, "gpu_hours_lost": 1.5,
            "evidence": [{PAYLOAD_NAME: PAYLOAD_EVENT, "line": PAYLOAD_LOG, "nested": {"k": PAYLOAD_LABEL}}],
            "recommendation": "Fix " + PAYLOAD_ANNOTATION,
        }],
        "skipped": [{"rule": "straggler", "reason": "because " + PAYLOAD_LOG}],
    }


class ScriptCounter(HTMLParser):
    """Counts start tags as a browser's tokenizer sees them (script content is raw text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: dict[str, int] = {}
        self.scripts: list[dict[str, str | None]] = []
        self.event_handlers = 0
        self.refs: list[str] = []
        self._in_style = False
        self.css = ""

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.refs += [v or "" for k, v in attrs if k.lower() in ("src", "href", "action", "srcset", "poster", "data")]
        self._in_style = tag == "style"
        if tag == "script":
            self.scripts.append(dict(attrs))
        self.event_handlers += sum(1 for k, _ in attrs if k.lower().startswith("on"))

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.css += data


def parse_html(text: str) -> ScriptCounter:
    """Tag counts of a page."""
    counter = ScriptCounter()
    counter.feed(text)
    return counter


def external_refs(text: str) -> list[str]:
    """Attribute URLs (src, href, ...) and CSS url()/@import of the page that point outside it."""
    page = parse_html(text)
    refs = page.refs + re.findall(r"""url\(\s*["']?([^"')\s]+)""", page.css) + re.findall(r"@import", page.css)
    return [r for r in refs if not r.startswith(("#", "data:"))]
