"""An exception raised where the program reads what the launch gives every process alike: a common-mode mark.

A traceback's source line says what the failing statement did. Two statements fail on what every process of the
launch shares rather than on anything of the process that printed the traceback:

* a sequence subscripted by the process's own rank (``return rank_to_jsonl_iterator_params[rank]``,
  ``gpus[args.local_rank]``, ``shards[self.dp_rank]``) raising ``IndexError: … index out of range``: the sequence,
  built from the job's configuration (data files per rank, a device list, a rank map), is shorter than the ranks the
  launch started, so every rank at or past its length fails alike; the rank in the paste is whichever one was pasted;
* ``json.loads`` of a command-line argument's value (``json.loads(args.training_parameters)``) raising
  ``JSONDecodeError``: the command line is the launch's, the same string in every process, so each fails to decode it
  alike (argparse's own usage error is read so already: queries/_incident_common_mode.sql, ``common_mode``).

A third shape is a frame, not a source line: a settings object's ``__post_init__`` in a module of arguments or
configuration (``File ".../swift/llm/argument/rlhf_args.py", line 252, in __post_init__``, transformers'
``training_args.py``, a ``config.py``) refusing the run's settings (``NotImplementedError: The current rlhf_type 'gkd'
does not support sequence_parallel. Please set --sequence_parallel_size to 1.``): every process parses the same command
line and files into the same dataclass, so each refuses them alike (batch 346's ms-swift#7141). Marked ``SETTINGS_CHECK``
when the exception comes ``SETTINGS_GAP`` lines at most under that frame.

A fourth is an ``assert`` statement checking the run's settings against the launch's size (dlrover#533's ``assert
gradient_accumulation_steps % world_size == 0`` over a bare ``AssertionError``; ``args.num_gpus ==
torch.cuda.device_count()``): every process is given the same world size and settings and evaluates the same statement,
so each fails it alike (session 64). Not a statement naming the rank (YOLOv5-Lite#195's ``assert
torch.cuda.device_count() > opt.local_rank``: only the ranks past the node's GPUs fail it, the rank's own). Marked
``WORLD_CHECK`` when the ``AssertionError`` comes ``RANK_INDEX_GAP`` lines at most under it; another exception under it
(a ``ZeroDivisionError``) is no mark.

The exception is marked (its message prefixed with ``RANK_INDEX`` or ``ARGUMENT_DECODE``) when the source line is that
process's, ``RANK_INDEX_GAP`` / ``ARGUMENT_DECODE_GAP`` lines above it at most (3.11's ``~~~^^^`` line, json's own frames
between); queries/_incident_common_mode.sql's ``common_mode`` names no one for it. Another exception under such a line (a
``KeyError`` from a dict of ranks, a ``TypeError``) is no mark: only the shapes above say the input is short or
malformed for everyone (docs/rules.md, "Session 30: named controls").
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_normalize import Normalized

Event = dict[str, Any]

#: a source line subscripting a name by the process's rank (``params[rank]``, ``x[args.local_rank]``,
#: ``shards[self.dp_rank]``, ``files[global_rank]``): not a frame line (``File "…"``)
RANK_SUBSCRIPT = re.compile(r"[\w\])]\[\s*(?:[A-Za-z_]\w{0,40}\.)?(?:global_|local_|dp_|data_parallel_|node_|world_)?rank(?:_id|_idx)?\s*\]")
#: ``json.loads`` of an argparse namespace's attribute (``json.loads(args.x)``, ``json.loads(opt.x)``)
ARGUMENT_DECODE_CALL = re.compile(r"\bjson\.loads\(\s*(?:args|opt|opts|cli_args|cmd_args|script_args)\.\w{1,80}\s*\)")
#: a settings dataclass's ``__post_init__`` frame in a module of arguments or configuration (the file's name or folder)
SETTINGS_FRAME = re.compile(r'^\s*File "[^"\n]{0,400}?(?:arg|config|setting|param|option)[^"/\n]{0,80}(?:/[^"/\n]{1,200})?\.py", '
                            r'line \d{1,7}, in __post_init__\s*$', re.IGNORECASE)
#: an ``assert`` statement checking something against the launch's size (``assert gradient_accumulation_steps %
#: world_size == 0``, ``assert args.num_gpus == torch.cuda.device_count()``): the size every process is given alike;
#: a statement naming the rank is left out (SharedInputs.source_line)
WORLD_ASSERT = re.compile(r"^\s*assert\b[^#\n]{0,240}?\b(?:\w{0,40}world_size\b|get_world_size\(|num_processes\b|nprocs?\b|"
                          r"n_?gpus?\b|num_gpus\b|device_count\()")
SETTINGS_GAP = 8  # the frame, its source line, a helper's frame and source line, a `raise X(` line, the exception
RANK_INDEX_GAP = 3  # the source line, 3.11's ~~~^^^ line, then the exception
ARGUMENT_DECODE_GAP = 12  # the source line, json's own frames (loads, decode, raw_decode: two lines each), the exception
#: the marks (queries/_incident_common_mode.sql, common_mode)
RANK_INDEX = "a sequence indexed by rank is shorter than the launch's ranks: "
ARGUMENT_DECODE = "the command line's argument is no JSON: "
SETTINGS_CHECK = "the run's settings, refused as every process parses them: "
WORLD_CHECK = "the launch's size, asserted alike by every process: "


class SharedInputs:
    """Per printing rank, the last source line reading a shared input (its line number and which shape)."""

    def __init__(self) -> None:
        self._source: dict[int | None, tuple[int, str]] = {}

    def source_line(self, line_no: int, norm: Normalized) -> None:
        """A traceback's source line of one of the two shapes: remembered (what else the line is, it stays)."""
        text = norm.text
        if text.lstrip().startswith("File "):
            if text.rstrip().endswith("__post_init__") and SETTINGS_FRAME.match(text):
                self._source[norm.rank] = (line_no, "settings")
            return
        if "rank" in text and "[" in text and RANK_SUBSCRIPT.search(text):
            self._source[norm.rank] = (line_no, "rank")
        elif "json.loads" in text and ARGUMENT_DECODE_CALL.search(text):
            self._source[norm.rank] = (line_no, "argument")
        elif "assert" in text and WORLD_ASSERT.match(text) and "rank" not in text[text.index("assert"):].lower():
            self._source[norm.rank] = (line_no, "world")

    def mark(self, line_no: int, norm: Normalized, head: Event) -> None:
        """An exception of the same printer under such a line: its message marked (the line is used up either way)."""
        source = self._source.pop(norm.rank, None) if head["kind"] == "python_exception" else None
        if source is None:
            return
        error_type, message = str(head.get("error_type") or ""), str(head.get("error_message") or "")
        if source[1] == "rank" and line_no - source[0] <= RANK_INDEX_GAP and error_type.endswith("IndexError") \
                and "index out of range" in message:
            head["error_message"] = (RANK_INDEX + message)[:300]
        elif source[1] == "argument" and line_no - source[0] <= ARGUMENT_DECODE_GAP and error_type.endswith("JSONDecodeError"):
            head["error_message"] = (ARGUMENT_DECODE + (message or error_type))[:300]
        elif source[1] == "world" and line_no - source[0] <= RANK_INDEX_GAP and error_type.endswith("AssertionError"):
            head["error_message"] = (WORLD_CHECK + (message or error_type))[:300]
        elif source[1] == "settings" and line_no - source[0] <= SETTINGS_GAP:
            head["error_message"] = (SETTINGS_CHECK + (message or error_type))[:300]


__all__ = ["ARGUMENT_DECODE", "ARGUMENT_DECODE_CALL", "RANK_INDEX", "RANK_SUBSCRIPT", "SETTINGS_CHECK", "SETTINGS_FRAME", "SharedInputs",
           "WORLD_ASSERT", "WORLD_CHECK"]
