"""An Airflow task log of a KubernetesPodOperator (``apache-airflow-providers-cncf-kubernetes``): the pod's own lines
taken out of the operator's.

Airflow 2's task log writes every record as ``[<time>] {<file>.py:<lineno>} <LEVEL> - <message>`` (the file holds
``[2026-11-28T12:05:03.281+0000]``, the web UI shows ``[2026-11-28, 12:05:03 UTC]``). The operator's pod manager
follows the pod's container and logs each of its lines as one ``INFO`` record, ``[<container>] <line>`` (providers 7
and later; ``base`` is the operator's container), around the operator's own records (the pod's phases, its deletion, the
``AirflowException`` of a failed pod with Airflow's traceback). ``airflow_text(text)`` keeps the container's lines only,
each behind its time as the kubelet would write it (ISO, ``Z``): the parser reads them as the pod's log; the operator's
records say nothing of the training and its traceback is no rank's. Several containers followed (``container_logs=True``):
``base``'s lines when it is among them, else all of them. None when the text is not such a task log.
"""

from __future__ import annotations

import re

#: ``[<time>] {<file>.py:<lineno>} <LEVEL> - <message>``; the time as written to the file or as the web UI shows it
_RECORD = re.compile(r"^\[(\d{4}-\d\d-\d\d)(?:, |T)(\d\d:\d\d:\d\d)((?:[.,]\d{1,9})?)(?: UTC|[+-]\d\d:?\d\d|Z)?\] "
                     r"\{([\w.-]{1,100}\.py):\d{1,6}\} (DEBUG|INFO|WARNING|ERROR|CRITICAL) - ")
#: the pod manager's record of one container line: ``{pod_manager.py:N} INFO - [<container>] <line>``
_CONTAINER = re.compile(r"\[([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)\] ?")
#: at least this share of the non-blank lines are Airflow records for the text to be read as a task log
SHARE = 0.6


def airflow_text(text: str) -> str | None:
    """The pod's lines of an Airflow KubernetesPodOperator task log (see the module doc), or None."""
    if "} INFO - [" not in text[:1 << 20]:
        return None
    lines = [ln for ln in text.split("\n") if ln.strip()]
    records = [(m, ln) for ln in lines if (m := _RECORD.match(ln))]
    if not lines or len(records) < SHARE * len(lines):
        return None
    rows = []
    for m, ln in records:
        c = _CONTAINER.match(ln, m.end()) if m.group(4) == "pod_manager.py" and m.group(5) == "INFO" else None
        if c:
            rows.append((c.group(1), f"{m.group(1)}T{m.group(2)}{m.group(3).replace(',', '.')}Z {ln[c.end():]}"))
    if not rows:
        return None
    kept = [line for container, line in rows if container == "base"] or [line for _, line in rows]
    return "\n".join(kept) + "\n"


__all__ = ["airflow_text"]
