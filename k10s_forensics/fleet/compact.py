"""``k10s fleet compact``: one file per table and partition, crash-safe.

Incremental indexing adds files every run; thousands of small files make every engine
slow to list and open them. Compaction rewrites each (cluster, month) partition holding
more than one batch into one new batch. Order, per partition: the new data files, then a
journal ``_compact.json`` naming the old files, then the new ``bundles`` file (the commit
point, as for ``index``), then the old files are deleted and the journal removed. A crash
before the commit leaves orphan data files that ``drop_orphans`` removes; a crash after it
leaves the journal, and ``recover`` deletes the old files it names (run by ``index`` and
``compact`` before they write).
"""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import write_json_atomic
from k10s_forensics.fleet.schema import TABLE_NAMES, TABLES_BY_NAME
from k10s_forensics.fleet.store import FleetStore, new_batch_id, write_part

JOURNAL = "_compact.json"


def recover(store: FleetStore) -> int:
    """Finish an interrupted compaction; returns the old files deleted."""
    journal = store.root / JOURNAL
    if not journal.is_file():
        return 0
    entry = json.loads(journal.read_text(encoding="utf-8"))
    deleted = 0
    committed = (store.root / entry["bundles_file"]).is_file()
    for rel in entry["old"] if committed else []:
        path = store.root / rel
        if path.is_file():
            path.unlink()
            deleted += 1
    journal.unlink()
    return deleted


def compact(store: FleetStore) -> dict[str, int]:
    """Rewrite every partition with more than one batch into one; counts of what changed."""
    recover(store)
    store.drop_orphans()
    done = {"partitions": 0, "files_before": 0, "files_after": 0}
    for folder in sorted({p.parent.relative_to(store.root / "bundles") for p in store.files("bundles")}):
        if len(list((store.root / "bundles" / folder).glob("part-*.parquet"))) < 2:
            continue
        batch = new_batch_id()
        old: list[str] = []
        for table in [t for t in TABLE_NAMES if t != "bundles"] + ["bundles"]:
            part = store.root / table / folder
            files = sorted(part.glob("part-*.parquet")) if part.is_dir() else []
            if not files:
                continue
            schema = TABLES_BY_NAME[table].schema
            data = pa.concat_tables([pq.read_table(f).select([c for c in schema.names]).cast(schema) for f in files])
            old += [f.relative_to(store.root).as_posix() for f in files]
            if table == "bundles":  # the commit point: journal first, so old files never outlive it
                write_json_atomic(store.root / JOURNAL, {"bundles_file": f"bundles/{folder.as_posix()}/part-{batch}.parquet", "old": old})
            write_part(part, batch, data)
            done["files_before"] += len(files)
            done["files_after"] += 1
        recover(store)
        done["partitions"] += 1
    return done


__all__ = ["compact", "recover", "JOURNAL"]
