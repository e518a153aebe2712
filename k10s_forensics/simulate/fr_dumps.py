"""Simulated PyTorch Flight Recorder dumps and NCCL RAS answers (what capture reads in pods).

``fr_dump`` builds one rank's dump dict in the layout PyTorch writes (version, pg_config,
pg_status, entries); ``encode_dump`` turns it into the bytes of a pickle or JSON dump file;
``envelope`` wraps dump files the way the capture's dump reader prints them. ``ras_text``
writes an ``ncclras`` text answer (job summary, communicators, errors, warnings).
"""

from __future__ import annotations

import base64
import json
import pickle
from typing import Any

ENVELOPE = "flight-recorder/1"
DEFAULT_PREFIX = "/tmp/nccl_trace_rank_"
OPS = {"ALLREDUCE": "nccl:all_reduce", "BROADCAST": "nccl:broadcast", "_ALLGATHER_BASE": "nccl:_allgather_base",
       "ALLGATHER": "nccl:all_gather", "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base", "REDUCE_SCATTER": "nccl:reduce_scatter"}


def fr_entry(record_id: int, seq: int, op: str, numel: int, state: str, t_ns: int, pg: tuple[str, str] = ("0", "default_pg"),
             timeout_ms: int = 600000) -> dict[str, Any]:
    return {
        "record_id": record_id, "pg_id": int(pg[0]) if pg[0].isdigit() else 0, "process_group": pg,
        "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq, "is_p2p": False,
        "profiling_name": OPS.get(op, op if ":" in op else f"nccl:{op.lower()}"),
        "time_created_ns": t_ns, "input_sizes": [[numel]], "input_dtypes": ["Float"],
        "output_sizes": [[numel]], "output_dtypes": ["Float"], "state": state,
        "time_discovered_started_ns": t_ns + 1000 if state != "scheduled" else None,
        "time_discovered_completed_ns": t_ns + 5_000_000 if state == "completed" else None,
        "duration_ms": None, "timeout_ms": timeout_ms, "retired": state == "completed",
        "frames": [{"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2707}],
    }


def fr_dump(entries: list[dict[str, Any]], pg_ranks: list[int], version: str = "2.4") -> dict[str, Any]:
    return {
        "version": version,
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": json.dumps(pg_ranks)}},
        "pg_status": {"0": {"last_enqueued_collective": max((e["collective_seq_id"] for e in entries), default=-1)}},
        "entries": entries,
    }


def encode_dump(doc: dict[str, Any], fmt: str = "pickle") -> bytes:
    if fmt == "json":
        return json.dumps(doc).encode()
    return pickle.dumps(doc, protocol=2)


def envelope(files: dict[str, bytes | None], prefix: str = DEFAULT_PREFIX, skipped: dict[str, str] | None = None) -> str:
    items: list[dict[str, Any]] = [{"path": p, "bytes": len(b), "b64": base64.b64encode(b).decode()} for p, b in files.items() if b is not None]
    items += [{"path": p, "skipped": why} for p, why in (skipped or {}).items()]
    return json.dumps({"k10s": ENVELOPE, "prefix": prefix, "files": items})


def ras_text(nodes: int, per_node: int, *, version: str = "2.26.2", dead: list[tuple[str, int, int, int]] | None = None,
             collection_s: float = 0.01) -> str:
    """An ``ncclras`` text answer; ``dead`` = [(host ip, pid, gpu, rank)] of processes RAS declared dead."""
    world = nodes * per_node
    errors = "INCOMPLETE" if dead else "OK"
    lines = [f"NCCL version {version} compiled with CUDA 12.4", "CUDA runtime version 12040, driver version 12040", "",
             "Job summary", "===========", "",
             "  Nodes  Processes         GPUs  Processes     GPUs",
             "(total)   per node  per process    (total)  (total)",
             f"{nodes:7d}  {per_node:9d}  {1:11d}  {world:9d}  {world:7d}", "",
             f"Communicators... ({collection_s:.2f}s)", "=============", "",
             "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors",
             "    #  in group  per comm  per node  per comm  in group",
             f"{0:5d} {1:9d} {nodes:9d} {per_node:9d} {world:9d} {world:9d} {'RUNNING':>9} {errors:>10}", "",
             "Errors", "======", ""]
    if dead:
        lines += ["DEAD", f"  {len(dead)} job process{'es are' if len(dead) > 1 else ' is'} considered dead (unreachable via the RAS network)"]
        lines += [f"  Process {pid} on node {ip} managing GPU {gpu}" for ip, pid, gpu, _ in dead]
        lines += ["", "#0-0 (cf264af53edbe986) INCOMPLETE", f"  Missing communicator data from {len(dead)} rank{'s' if len(dead) > 1 else ''}",
                  f"  The missing rank{'s' if len(dead) > 1 else ''}: {', '.join(str(d[3]) for d in dead)}", ""]
    lines += ["Warnings", "========", ""]
    return "\n".join(lines)


__all__ = ["fr_entry", "fr_dump", "encode_dump", "envelope", "ras_text", "DEFAULT_PREFIX", "ENVELOPE"]
