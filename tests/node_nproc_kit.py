"""Synthetic node logs of torchrun jobs whose nodes run different process counts (tests/test_node_nproc_layouts.py): the
culprit's traceback tagged with its local rank only (``[default1]:``, torch before 2.2), each node's agent failure table
with ``rank : R (local_rank: L)``, the other ranks' gloo ``Connection closed by peer``."""

from __future__ import annotations

T = "2026-12-01T07:36:{:06.3f}000Z "


def _table(ranks: list[tuple[int, int, int]], t: float) -> list[str]:
    """A torchrun failure table: (global rank, local rank, exit code), the first the root cause."""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60, "Failures:"]
    entries = ranks[1:]
    if not entries:
        out.append("  <NO_OTHER_FAILURES>")
    for i, (g, loc, code) in enumerate(entries, 1):
        out += [f"[{i}]:", "  time      : 2026-12-01_07:36:10", "  host      : localhost", f"  rank      : {g} (local_rank: {loc})",
                f"  exitcode  : {code} (pid: {5800 + g})" + ("  (SIGTERM)" if code == -15 else " "), "  error_file: <N/A>",
                "  traceback : " + ("Signal 15 (SIGTERM) received by PID %d" % (5800 + g) if code == -15 else
                                    "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    g, loc, code = ranks[0]
    out += ["-" * 60, "Root Cause (first observed failure):", "[0]:", "  time      : 2026-12-01_07:36:10", "  host      : localhost",
            f"  rank      : {g} (local_rank: {loc})", f"  exitcode  : {code} (pid: {5800 + g}) ", "  error_file: <N/A>",
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", "=" * 60]
    return [T.format(t + i * 0.001) + line for i, line in enumerate(out)]


def node_logs(counts: list[int], culprit: int, table: list[bool] | None = None) -> list[str]:
    """One log per node of a job whose node ``i`` runs ``counts[i]`` processes; global rank ``culprit`` raises a KeyError
    (its lines tagged ``[default<local>]:`` only), every other rank sees the connection close; ``table[i]`` False: node
    ``i``'s agent printed no failure table (its log cut before it)."""
    logs, base = [], 0
    for node, count in enumerate(counts):
        lines, ranks = [], []
        for loc in range(count):
            g = base + loc
            if g == culprit:
                lines += [T.format(7.0 + loc * 0.01) + f"[default{loc}]:" + s for s in (
                    "Traceback (most recent call last):", '  File "/workspace/train.py", line 53, in <module>',
                    '    batch["labels"]', "KeyError: 'labels'")]
                ranks.insert(0, (g, loc, 1))
            else:
                lines += [T.format(9.0 + loc * 0.01) + f"[default{loc}]:" + s for s in (
                    "Traceback (most recent call last):", '  File "/workspace/train.py", line 83, in <module>',
                    "    dist.all_reduce(p.grad)",
                    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection closed by peer [10.0.0.1]:142")]
                ranks.append((g, loc, 1 if base > culprit or base + count <= culprit else -15))
        lines.sort(key=lambda line: line[:31])  # in time order (stable: a traceback keeps its order)
        if table is None or table[node]:
            lines.append(T.format(10.5) + f"E1201 07:36:10.890000 {5700 + node} torch/distributed/elastic/multiprocessing/api.py:1002] "
                         f"failed (exitcode: 1) local_rank: {ranks[0][1]} (pid: {5800 + ranks[0][0]}) of binary: /opt/venv/bin/python3")
            lines += _table(ranks, 10.6)
        logs.append("\n".join(lines) + "\n")
        base += count
    return logs
