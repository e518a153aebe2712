"""k10s forensics: capture, analyze and report distributed GPU training incidents on Kubernetes."""

__version__ = "0.1.0"
FORMAT_VERSION = 1
#: Bump when a parser changes what it derives: bundles rebuilt by an older version are re-derived.
PARSER_VERSION = "1.7.0"

__all__ = ["__version__", "FORMAT_VERSION", "PARSER_VERSION"]
