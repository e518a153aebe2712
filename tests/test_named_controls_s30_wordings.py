"""Session 30's named controls (issue 18: no control given a culprit): an exception raised by a statement reading what
the launch gives every process alike (docs/rules.md, "Session 30: named controls"; parsers/log_shared_inputs.py):

* a sequence subscripted by the process's rank running out of range (lingua-58's ``return
  rank_to_jsonl_iterator_params[rank]`` / ``IndexError: list index out of range``; ``gpus[args.local_rank]``,
  ``shards[self.dp_rank]``; with or without 3.11's ``~~~^^^`` line): the configuration built fewer entries than the
  launch started ranks, every rank past the last fails alike, so the pasted rank is no culprit;
* ``json.loads`` of a command-line argument refusing it (katib-2587's ``json.loads(args.training_parameters)`` /
  ``JSONDecodeError``, json's own frames between): the command line every process gets alike;
* the contrasts, each still the rank's own: the same IndexError under a subscript by something else (``batch[idx]``),
  another exception under a rank subscript (``KeyError`` from a dict), a JSON decode of a file's text; at parser level
  also a statement of another printer, or further up the stack than the exception's own frame.

The analyses go through tests/bundle_batch.py (every input in one analysis); the mark is pinned at parser level.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers.log_shared_inputs import ARGUMENT_DECODE, RANK_INDEX
from parser_kit import body_events

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
LINGUA = corpus_log("lingua-58-slurm-dp-rank-overflow-rank30-indexerror-control")
KATIB = corpus_log("katib-2587-llm-trial-worker-0-training-parameters-jsondecode-control")
OUT_OF_RANGE = "IndexError: list index out of range"


def _indexed(rank: int, statement: str, error: str = OUT_OF_RANGE, carets: bool = True, printer: int | None = None) -> str:
    """Rank ``rank``'s tagged traceback ending in ``statement`` (3.11's caret line under it: ``carets``) and ``error``;
    ``printer``: the statement's frame printed by another rank than the exception."""
    src = rank if printer is None else printer
    lines = [(rank, "Traceback (most recent call last):"),
             (rank, '  File "/workspace/train.py", line 88, in <module>'), (rank, "    main()"),
             (src, '  File "/workspace/data.py", line 506, in build_loader'), (src, "    " + statement)]
    lines += [(src, "           " + "~" * 12 + "^" * 6)] if carets else []
    lines += [(rank, error)]
    return "".join(f"[rank{r}]: {line}\n" for r, line in lines)


def _decoded(call: str, error: str = "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)") -> str:
    """One process's untagged traceback whose script decodes with ``call``, json's own frames under it, then ``error``,
    and torchrun's report of its local rank 0."""
    return "\n".join([
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 40, in <module>',
        f"    config = {call}",
        '  File "/usr/lib/python3.10/json/__init__.py", line 346, in loads',
        "    return _default_decoder.decode(s)",
        '  File "/usr/lib/python3.10/json/decoder.py", line 337, in decode',
        "    obj, end = self.raw_decode(s, idx=_w(s, 0).end())",
        '  File "/usr/lib/python3.10/json/decoder.py", line 355, in raw_decode',
        '    raise JSONDecodeError("Expecting value", s, err.value) from None',
        error,
        "E1201 08:00:01.000000 140614705968960 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) "
        "local_rank: 0 (pid: 52) of binary: /usr/bin/python"]) + "\n"


BUILD = {"lingua": lambda: LINGUA, "katib": lambda: KATIB, "indexed": _indexed, "decoded": _decoded}
# key: (shape, arguments…)
CONTROLS = [("lingua",), ("katib",), ("indexed", 5, "return gpus[args.local_rank]"),
            ("indexed", 12, "shard = self.shards[self.dp_rank]", OUT_OF_RANGE, False),
            ("indexed", 3, "files = files_per_rank[global_rank]", "IndexError: tuple index out of range"),
            ("decoded", "json.loads(args.training_parameters)"), ("decoded", "json.loads( opt.model_kwargs )")]
CULPRITS = {("indexed", 5, "sample = batch[idx]"): 5,
            ("indexed", 2, "return rank_map[rank]", "KeyError: 2"): 2,
            ("decoded", "json.loads(open(path).read())"): 0}
BATCHED = Batched("named-controls-s30", CONTROLS + list(CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](*key[1:]), folder, 4, NOW, world=4 if key[0] == "decoded" else 32)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_shared_input_the_statement_reads_names_no_one(tmp_path_factory, key):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), None)
    said = [f for f in findings if f["rule"] == "rank-failure"]
    assert said and any("no single culprit" in (f.get("summary") or "") + (f.get("explanation") or "") for f in said), \
        [(f["rule"], f["severity"], f["cause"], f["ranks"], f.get("summary")) for f in findings]


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_another_subscript_exception_decode_or_printer_names_the_rank(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CULPRITS[key], "python-exception")


def _messages(text: str) -> list[str]:
    return [e["error_message"] for e in body_events(text.splitlines(), NOW) if e["kind"] == "python_exception"]


def test_the_mark_is_the_statements_and_the_exceptions():
    assert _messages(_indexed(30, "return params[rank]")) == [RANK_INDEX + "list index out of range"]
    assert _messages(_indexed(30, "return params[rank]", carets=False)) == [RANK_INDEX + "list index out of range"]
    assert [m.startswith(RANK_INDEX) for m in _messages(LINGUA)] == [True]
    assert [m.startswith(ARGUMENT_DECODE) for m in _messages(KATIB)] == [True]
    assert not any(m.startswith(RANK_INDEX) for m in _messages(_indexed(4, "x = batch[idx]")))
    assert not any(m.startswith(RANK_INDEX) for m in _messages(_indexed(4, "return rank_map[rank]", "KeyError: 4")))
    assert not any(m.startswith(ARGUMENT_DECODE) for m in _messages(_decoded("json.loads(open(path).read())")))
    # another printer's statement, or one further up than the exception's own frame, is no mark
    assert not any(m.startswith(RANK_INDEX) for m in _messages(_indexed(6, "return params[rank]", OUT_OF_RANGE, True, 1)))
    far = _indexed(4, "return params[rank]", carets=False).replace("[rank4]: IndexError", "[rank4]:     y = f(x)\n[rank4]:     z = g(y)\n"
                                                                                    "[rank4]:     w = h(z)\n[rank4]: IndexError")
    assert not any(m.startswith(RANK_INDEX) for m in _messages(far))


def test_the_variants_keep_their_shape():
    """The builders change ranks, subscripts and calls, not the wording the tests are about."""
    assert LINGUA.rstrip().endswith("[rank30]: " + OUT_OF_RANGE) and "[rank]" in LINGUA
    assert "json.loads(args.training_parameters)" in KATIB and "JSONDecodeError" in KATIB
    assert _indexed(6, "return params[rank]", OUT_OF_RANGE, True, 1).count("[rank1]:") == 3
    assert "~~~" not in _indexed(12, "x = s[self.dp_rank]", OUT_OF_RANGE, False)
    assert _decoded("json.loads(args.x)").count("json/decoder.py") == 2
