"""The import graph of ``k10s_forensics`` read from the source (ast, nothing imported).

Every ``import``/``from ... import`` of a ``k10s_forensics`` module counts, also those inside
functions (lazy imports) and under ``if TYPE_CHECKING`` (a type-only import still ties the
two modules together). ``cycles()`` returns the strongly connected components of more than
one node: each is an import circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "k10s_forensics"
REPO = Path(__file__).resolve().parents[1]
#: Package name -> source folder (pyproject's package-dir: some subpackages live at the top).
FOLDERS = {PACKAGE: "k10s_forensics", f"{PACKAGE}.collectors": "collectors", f"{PACKAGE}.queries": "queries",
           f"{PACKAGE}.reports": "reports"}


def modules(repo: Path = REPO) -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in (repo / folder).rglob("*.py"):
            parts = [package, *path.relative_to(repo / folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    out: set[str] = set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(_resolve(a.name, known) for a in node.names if a.name.startswith(PACKAGE))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - (node.level - 1)] + ([base] if base else []))
            if base.startswith(PACKAGE):
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    out.add(full if full in known else _resolve(base, known))
    out.discard(None)
    out.discard(module)
    return out


def module_graph(repo: Path = REPO) -> dict[str, set[str]]:
    known = modules(repo)
    return {name: _imports(name, path, known) for name, path in known.items()}


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Modules folded into their first-level package (``k10s_forensics.capture``) or top module."""

    def unit(name: str) -> str:
        return ".".join(name.split(".")[:2])

    folded: dict[str, set[str]] = {}
    for src, targets in graph.items():
        folded.setdefault(unit(src), set()).update(unit(t) for t in targets if unit(t) != unit(src))
    return folded


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found
