"""Score every monitoring shape (tests/monitor_shapes.py) on 50 simulated incidents each.

    K10S_THREADS=1 python tests/tools/score_monitor_shapes.py [RUNS] [SHAPE ...]

Run i simulates SCENARIOS[i % 5] with seed i // 5 + 1 (3 nodes x 2 GPUs, 8 minutes, 10 s scrapes),
turns it into each shape, rebuilds and analyses it, and counts right / false / nothing per shape
(``monitor_shapes.judge``). Prints one line per shape and the runs that were not right.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import monitor_shapes  # noqa: E402
from k10s_forensics.analyze.runner import analyze  # noqa: E402
from k10s_forensics.simulate import simulate  # noqa: E402
from k10s_forensics.store.bundle import Bundle  # noqa: E402

SCENARIOS = ("straggler-compute", "straggler-input", "xid-79", "nccl-hang", "healthy")


def main(argv: list[str]) -> None:
    runs = int(argv[0]) if argv else 50
    shapes = argv[1:] or list(monitor_shapes.SHAPES)
    root = Path(tempfile.mkdtemp(prefix="k10s-monitor-shapes-"))
    counts = {s: Counter() for s in shapes}
    bad: list[str] = []
    for i in range(runs):
        scenario, seed = SCENARIOS[i % len(SCENARIOS)], i // len(SCENARIOS) + 1
        src = root / f"{scenario}-{seed}"
        truth = simulate(scenario, src, seed=seed, nodes=3, gpus_per_node=2, minutes=8, interval_s=10)
        for shape in shapes:
            out = monitor_shapes.make(src, root / f"{scenario}-{seed}-{shape}", shape)
            result = analyze(Bundle.open(out))
            verdict = monitor_shapes.judge(truth, result, shape)
            counts[shape][verdict] += 1
            if verdict != "right":
                got = [(f["rule"], f["cause"], f["severity"], f["ranks"][:4], f["nodes"][:2]) for f in result["findings"]]
                bad.append(f"{shape} {scenario}/{seed}: {verdict} {got}")
            shutil.rmtree(out)
    for shape in shapes:
        c = counts[shape]
        print(f"{shape:24s} right {c['right']:3d}  false {c['false']:3d}  nothing {c['nothing']:3d}")
    for line in bad:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
