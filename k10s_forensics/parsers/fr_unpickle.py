"""A restricted unpickler for PyTorch Flight Recorder dumps: data only, never code.

A Flight Recorder dump (``TORCH_NCCL_TRACE_BUFFER_SIZE`` > 0, written at a watchdog timeout
to ``<TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>``) is a pickle of dicts, lists, tuples, strings
and numbers. A pickle from a cluster is untrusted: a crafted one runs any command the
moment :func:`pickle.loads` resolves a global (``os.system``, ``subprocess.Popen``, ...).

:func:`loads_data` resolves **no** global: every ``GLOBAL``/``STACK_GLOBAL``/``INST``/``OBJ``
and extension-registry opcode reaches :meth:`DataOnlyUnpickler.find_class`, which refuses
it, and persistent ids are refused too. So only builtin containers and scalars can be
built. The one concession: PyTorch's own pickler writes typed lists as
``torch.jit._pickle.build_intlist([...])`` (and ``build_doublelist``, ``build_boollist``,
``restore_type_tag``); those four names are answered by local functions that return their
argument unchanged. No module is imported for them and nothing else is accepted.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from k10s_forensics.errors import ParseError

#: Largest dump read (bytes); a bigger one is refused, not truncated.
MAX_DUMP_BYTES = 32 << 20


def _same_list(values: Any) -> Any:
    return values


def _first(value: Any, _type_tag: Any = None) -> Any:
    return value


#: PyTorch's typed-list markers: (module, name) -> local identity function (no import).
_DATA_MARKERS = {
    ("torch.jit._pickle", "build_intlist"): _same_list,
    ("torch.jit._pickle", "build_doublelist"): _same_list,
    ("torch.jit._pickle", "build_boollist"): _same_list,
    ("torch.jit._pickle", "restore_type_tag"): _first,
}


class UnsafePickleError(ParseError):
    """The pickle asked for something other than plain data (a global, a persistent id)."""


class DataOnlyUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` that builds only builtin containers and scalars."""

    def find_class(self, module: str, name: str) -> Any:  # noqa: D401 - pickle API
        marker = _DATA_MARKERS.get((module, name))
        if marker is not None:
            return marker
        raise UnsafePickleError(f"refused pickle global {module}.{name}: a Flight Recorder dump holds data only")

    def persistent_load(self, pid: Any) -> Any:
        raise UnsafePickleError("refused pickle persistent id: a Flight Recorder dump holds data only")


def loads_data(data: bytes, max_bytes: int = MAX_DUMP_BYTES) -> Any:
    """Unpickle ``data`` with :class:`DataOnlyUnpickler`.

    Raises:
        UnsafePickleError: a global or persistent id was asked for (nothing was run).
        ParseError: too large, or not a well-formed pickle.
    """
    if len(data) > max_bytes:
        raise ParseError(f"dump of {len(data)} bytes is over the {max_bytes}-byte limit; refused")
    try:
        return DataOnlyUnpickler(io.BytesIO(data)).load()
    except UnsafePickleError:
        raise
    except RecursionError as exc:
        raise ParseError("pickle nested too deeply; refused") from exc
    except Exception as exc:  # UnpicklingError, EOFError, ValueError, TypeError, MemoryError ...
        raise ParseError(f"not a readable pickle ({exc.__class__.__name__}: {str(exc)[:120]})") from exc


__all__ = ["DataOnlyUnpickler", "UnsafePickleError", "loads_data", "MAX_DUMP_BYTES"]
