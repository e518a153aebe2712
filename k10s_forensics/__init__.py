"""k10s forensics: capture, analyze and report distributed GPU training incidents on Kubernetes."""

import os as _os

# pyarrow's allocator (mimalloc) hands freed pages back to the OS after a delay; the parsers free
# and re-allocate tens of MB per batch, and every fresh page is zeroed by the kernel again: a
# quarter of a rebuild's CPU time was that system time (benchmarks/results/rebuild-columnar.md).
# Keeping them is read once, when pyarrow first loads, so it is set before anything imports it;
# a value already in the environment wins.
_os.environ.setdefault("MIMALLOC_PURGE_DELAY", "-1")

__version__ = "0.1.0"
FORMAT_VERSION = 1
#: Bump when a parser changes what it derives: bundles rebuilt by an older version are re-derived.
PARSER_VERSION = "1.99.0"

__all__ = ["__version__", "FORMAT_VERSION", "PARSER_VERSION"]
