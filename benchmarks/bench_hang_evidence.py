"""Benchmark: the hang evidence views at scale, side by side with the views without them.

A synthetic bundle (``tests/_analyze_kit`` tables) of N ranks, 8 per pod, in the worst case
for the log evidence: every rank times out in the watchdog (PG status lines too), every rank
prints a fingerprint mismatch report naming the culprit, and three ranks print a desync
report naming it. In one process, best of 3 each:

1. base     - the shared views without the hang evidence files (``_views*.sql``);
2. evidence - every views file (incident, evidence and verdict views) + reading the verdict;
3. nccl-hang - the nccl-hang rule on top of (2).

    python benchmarks/bench_hang_evidence.py --ranks 1024 4096
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def bundle(root: Path, ranks: int):
    from _analyze_kit import at, gang, table_bundle

    g = gang(pods=ranks // 8, per_pod=8)
    by_rank = {r["rank"]: r for r in g["ranks"]}
    culprit = ranks // 3
    rows = []

    def row(who, kind, t, **kw):
        r = by_rank[who]
        d = {"ts": at(t), "namespace": r["namespace"], "pod": r["pod"], "pod_uid": r["pod_uid"], "container": "pytorch",
             "rank": who, "kind": kind, "line": kind, "node": r["node"], "previous": False, "line_no": int(t * 100)}
        d.update(kw)
        return d

    for r in range(ranks):
        t = 700 + r * 0.001
        rows.append(row(r, "nccl_watchdog_timeout", t, seq_num=900, op_type="ALLREDUCE", numel_in=4096, numel_out=4096, timeout_ms=600000, subkind="watchdog_caught"))
        rows.append(row(r, "nccl_watchdog_timeout", t, seq_num=900, last_enqueued_seq=901, last_completed_seq=899, subkind="failure_detected", pg="0"))
        other = 0 if r == culprit else culprit
        own = "OpType=BROADCAST" if r == culprit else "OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=Float"
        theirs = "OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=Float" if r == culprit else "OpType=BROADCAST"
        for who, fp in ((r, own), (other, theirs)):
            rows.append(row(r, "collective_mismatch", 300 + r * 0.001, rank=who, reporter_rank=r, subkind="fingerprint", seq_num=57,
                            op_type=fp.split(",")[0][7:], fingerprint=fp, line_no=r))
    for reporter in (0, 1, 2):
        rows.append(row(reporter, "nccl_desync", 700.5, rank=culprit, reporter_rank=reporter, subkind="not_joined", seq_num=900, last_completed_seq=899))
    g["log_events"] = rows
    return table_bundle(root / f"b{ranks}", g), culprit


def best(fn, n=3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, nargs="+", default=[1024, 4096])
    args = ap.parse_args(argv)
    from k10s_forensics.analyze.runner import _ensure_views, run_rules
    from k10s_forensics.analyze.prices import PriceTable
    from k10s_forensics.analyze.rules import load_rules
    from k10s_forensics.engine import connect
    from k10s_forensics.queries import VIEWS_FILES, read_text

    print("| ranks | log_events rows | base views (s) | + hang evidence (s) | + nccl-hang (s) | culprit found | peak RSS (MiB) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in args.ranks:
            b, culprit = bundle(Path(tmp), ranks)

            def views(files):
                con = connect(b)
                _ensure_views(con)
                PriceTable.default().register(con)
                for name in files:
                    con.sql(read_text(name))
                return con

            base_files = [f for f in VIEWS_FILES if f.startswith("_views")]
            t_base = best(lambda: views(base_files).close())

            def evidence():
                con = views(VIEWS_FILES)
                con.sql("SELECT * FROM k10s_hang_verdict").fetchall()
                con.close()

            t_ev = best(evidence)
            rules = [r for r in load_rules(()) if r.id == "nccl-hang"]
            found = {}

            def hang():
                con = views(VIEWS_FILES)
                found["f"] = run_rules(con, b, rules)["findings"]
                con.close()

            t_hang = best(hang)
            n_rows = views(base_files).sql("SELECT count(*) FROM log_events").fetchall()[0][0]
            ok = [f["ranks"] for f in found["f"]] == [[culprit]]
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"| {ranks} | {n_rows} | {t_base:.2f} | {t_ev:.2f} | {t_hang:.2f} | {'yes' if ok else 'NO'} | {rss:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
