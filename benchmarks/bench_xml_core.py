"""nvidia-smi XML per core: the tree-free fast path against the ElementTree path, side by side.

    python benchmarks/bench_xml_core.py [--nodes 16] [--minutes 30] [--docs 300] [--repeat 5] [--profile]
    python benchmarks/bench_xml_core.py --bundle B     # the nvidia-smi-xml outputs of an existing bundle

Simulates a bundle (``healthy``, 8 GPUs per node; nvidia-smi XML per node and interval) or
reads one, takes ``--docs`` of its nvidia-smi XML outputs and measures, in one process and
alternating (so both see the same load), CPU seconds of one thread (``time.process_time``):

* ``ET.fromstring`` alone (the floor of any tree parser);
* ``parse_nvidia_smi_xml(text, fast=False)`` (the ElementTree path);
* ``parse_nvidia_smi_xml(text)`` (the fast path; plans warm, as in a rebuild);
* the fast path when every document has a skeleton never seen (it goes to the tree path), and
  when every document is the second sight of its skeleton (the plan is built: once per skeleton);
* ``nvidia_smi_xml.derive`` over the whole bundle, both ways (Arrow conversion + Parquet too).

Reports best and median MB/s per core, whether both paths gave the same rows, how many
documents took the fast path and how many distinct skeletons they had, the load average, and
with ``--profile`` the top functions of the fast deriver (cProfile).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import shutil
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pyarrow.parquet as pq

from k10s_forensics.store.bundle import Bundle
from k10s_forensics.parsers import ParseIssues, nvidia_smi_fast, nvidia_smi_xml
from k10s_forensics.rebuild.run import DeriveContext


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def derive_once(bundle: Bundle, fast: bool) -> float:
    out = Path(tempfile.mkdtemp(prefix="k10s-bench-xml-"))
    try:
        nvidia_smi_xml.USE_FAST_PATH = fast
        ctx = DeriveContext(bundle, out, ParseIssues())
        spent = cpu(lambda: (nvidia_smi_xml.derive(ctx), ctx.finish()))
        return spent
    finally:
        nvidia_smi_xml.USE_FAST_PATH = True
        shutil.rmtree(out, ignore_errors=True)


def each(fn, docs: list[str]) -> None:
    for doc in docs:
        fn(doc)


def cold(docs: list[str], sightings: int) -> None:
    """Every document a skeleton seen for the first time (1: goes to the tree path) or second (2: plan built)."""
    for doc in docs:
        nvidia_smi_fast._PLANS.clear()
        nvidia_smi_fast._SEEN.clear()
        for _ in range(sightings - 1):
            nvidia_smi_fast._SEEN.add(hash(nvidia_smi_fast.xml_fast.key(nvidia_smi_fast.xml_fast.split(doc[doc.find("<"):]))))
        nvidia_smi_xml.parse_nvidia_smi_xml(doc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundle", type=Path, default=None)
    ap.add_argument("--nodes", type=int, default=16)
    ap.add_argument("--minutes", type=int, default=30)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="k10s-bench-xml-core-"))
    try:
        path = args.bundle
        if path is None:
            from k10s_forensics.simulate import simulate

            path = work / "sim"
            simulate("healthy", path, seed=5, nodes=args.nodes, gpus_per_node=8, minutes=args.minutes, interval_s=10)
        bundle = Bundle.open(path)
        rows = pq.read_table(bundle.raw_path("exec"), columns=["source", "stdout"]).to_pylist()
        every = [r["stdout"] for r in rows if r["source"] == "nvidia-smi-xml" and r["stdout"]]
        docs = every[: args.docs]
        mb, all_mb = sum(map(len, docs)) / 1e6, sum(map(len, every)) / 1e6
        same = all(nvidia_smi_xml.parse_nvidia_smi_xml(d) == nvidia_smi_xml.parse_nvidia_smi_xml(d, fast=False) for d in docs)
        for d in every:  # first sights
            nvidia_smi_fast.parse(d[d.find("<"):])
        fast_docs = sum(nvidia_smi_fast.parse(d[d.find("<"):]) is not None for d in every)
        skeletons = len({nvidia_smi_fast.xml_fast.key(nvidia_smi_fast.xml_fast.split(d[d.find("<"):])) for d in every})
        cases = {
            "ET.fromstring alone": lambda: each(lambda d: ET.fromstring(d[d.find("<"):]), docs),
            "tree path (fast=False)": lambda: each(lambda d: nvidia_smi_xml.parse_nvidia_smi_xml(d, fast=False), docs),
            "fast path (plans warm)": lambda: each(nvidia_smi_xml.parse_nvidia_smi_xml, docs),
            "fast path, every skeleton new (first sight: tree path)": lambda: cold(docs, 1),
            "fast path, every skeleton on its second sight (plan built)": lambda: cold(docs, 2),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        derive_times: dict[bool, list[float]] = {False: [], True: []}
        load = [os.getloadavg()[0]]
        for _ in range(args.repeat):
            for name, fn in cases.items():
                times[name].append(cpu(fn))
            for fast in (False, True):
                derive_times[fast].append(derive_once(bundle, fast))
        load.append(os.getloadavg()[0])
        print(f"### nvidia-smi XML per core: {len(docs)} documents, {mb:.1f} MB ({mb * 1e3 / max(len(docs), 1):.0f} KB each)\n")
        print(f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}; "
              f"load average {load[0]:.1f} -> {load[1]:.1f}. CPU seconds of one thread, {args.repeat} alternating runs.\n")
        print("| what | best CPU s | MB/s per core (best) | MB/s (median) |")
        print("|---|---:|---:|---:|")
        for name, runs in times.items():
            print(f"| {name} | {min(runs):.3f} | {mb / min(runs):.0f} | {mb / statistics.median(runs):.0f} |")
        for fast, runs in derive_times.items():
            label = "fast" if fast else "tree"
            print(f"| whole `derive`, {label} path ({len(every)} documents, {all_mb:.1f} MB) | {min(runs):.3f} | "
                  f"{all_mb / min(runs):.0f} | {all_mb / statistics.median(runs):.0f} |")
        print(f"\nSame rows on both paths: {same}. Documents read by the fast path: {fast_docs} of {len(every)}; "
              f"distinct skeletons: {skeletons}.")
        if args.profile:
            prof = cProfile.Profile()
            out = Path(tempfile.mkdtemp(prefix="k10s-bench-xml-prof-"))
            ctx = DeriveContext(bundle, out, ParseIssues())
            prof.runcall(lambda: (nvidia_smi_xml.derive(ctx), ctx.finish()))
            shutil.rmtree(out, ignore_errors=True)
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(14)
            print("\n```\n" + "\n".join(buf.getvalue().splitlines()[4:]) + "\n```")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
