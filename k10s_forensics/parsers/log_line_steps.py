"""A paste repair's loop over lines (``log_paste``'s steps): each line kept, or replaced by the lines it stands for."""

from __future__ import annotations

from collections.abc import Callable


def expand_each(lines: list[str], expand: Callable[[str], list[str] | None], note: str) -> tuple[list[str], str | None]:
    """``lines`` with every line ``expand`` reads (a list: the lines it stands for; None: kept as it is) replaced,
    and ``note`` with the count of lines replaced in its ``{}`` (None: none was)."""
    out: list[str] = []
    replaced = 0
    for line in lines:
        many = expand(line)
        if many is None:
            out.append(line)
            continue
        out.extend(many)
        replaced += 1
    return (out, note.format(replaced)) if replaced else (lines, None)


__all__ = ["expand_each"]
