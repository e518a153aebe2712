"""``k10s analyze``: run the SQL rules of ``k10s_forensics.queries`` over a bundle.

* ``rules``  - rule-file header format, parsing, built-in and ``--rules DIR`` loading;
* ``runner`` - prepare DuckDB (tables, shared views, prices), skip rules whose inputs are
  absent/empty, run, build findings in the ``analyze --format json`` shape, sort;
* ``render`` - terminal (rich), JSON and Markdown output;
* ``prices`` - GPU-hour price table per GPU model.
"""

from k10s_forensics.analyze.runner import analyze

__all__ = ["analyze"]
