"""A Jupyter notebook (``.ipynb``) brought as a log: the output its cells saved, as the console showed it.

A notebook that ran ``!torchrun …`` (or ``%%bash``, ``subprocess``, a training loop) keeps what the
run printed in its code cells' outputs (nbformat 4): ``stream`` outputs (``name`` ``stdout`` or
``stderr``, ``text`` a string or a list of strings, each ending in its ``\\n``), ``error`` outputs (an
exception the cell raised: ``ename``, ``evalue``, ``traceback``, a list of lines coloured with ANSI
codes) and ``execute_result`` / ``display_data`` (``data["text/plain"]``). Read as JSON, a notebook is
one document of quoted strings: no line of it is a line the run wrote. ``notebook_text(text)`` gives
those outputs, cell after cell, in the order saved; None when ``text`` is no notebook.
"""

from __future__ import annotations

import json
import re

_HEAD = re.compile(r'^\ufeff?\s*\{\s*"(?:cells|metadata|nbformat|nbformat_minor)"\s*:')


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _output(out: object) -> str:
    if not isinstance(out, dict):
        return ""
    kind = out.get("output_type")
    if kind == "stream":
        return _text(out.get("text"))
    if kind == "error":
        return "\n".join(_text(t) for t in out.get("traceback") or [] if isinstance(t, str))
    if kind in ("execute_result", "display_data") and isinstance(out.get("data"), dict):
        return _text(out["data"].get("text/plain"))
    return ""


def notebook_text(text: str) -> str | None:
    """The saved outputs of every code cell (see the module doc), or None when ``text`` is not a notebook."""
    if not _HEAD.match(text[:200]):
        return None
    try:
        doc = json.loads(text.lstrip("\ufeff"))
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list) or not isinstance(doc.get("nbformat"), int):
        return None
    parts = []
    for cell in doc["cells"]:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            for out in cell.get("outputs") or []:
                body = _output(out)
                if body:
                    parts.append(body if body.endswith("\n") else body + "\n")
    return "".join(parts)


__all__ = ["notebook_text"]
