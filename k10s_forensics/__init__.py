"""k10s forensics: capture, analyze and report distributed GPU training incidents on Kubernetes."""

__version__ = "0.1.0"
FORMAT_VERSION = 1

__all__ = ["__version__", "FORMAT_VERSION"]
