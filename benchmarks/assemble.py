"""Write BENCHMARKS.md: the hand-written summary (benchmarks/summary.md) + every results file."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ["rebuild", "dcgm-parse", "parsers", "logs-parse", "k8s-parsers", "simulate", "analyze", "scale-4096", "scale",
         "report", "capture", "serve", "sharing"]


def main() -> None:
    results = ROOT / "benchmarks" / "results"
    names = ORDER + sorted(p.stem for p in results.glob("*.md") if p.stem not in ORDER)
    parts = [(ROOT / "benchmarks" / "summary.md").read_text().rstrip()]
    for name in names:
        path = results / f"{name}.md"
        if path.is_file():
            body = path.read_text().strip()
            body = "\n".join(("#" + line) if line.startswith("#") else line for line in body.splitlines())
            parts.append(f"<!-- benchmarks/results/{name}.md -->\n{body}")
    (ROOT / "BENCHMARKS.md").write_text("\n\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
