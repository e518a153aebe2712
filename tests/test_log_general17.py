"""Session 17's general fixes read by the parser (cheap: the assembler called directly) and, once, the rule it feeds:

* a connection error raised in the DataLoader's queue (``ConnectionResetError: [Errno 104] Connection reset by
  peer`` under ``File ".../torch/utils/data/dataloader.py", line 1293, in _try_get_data``, no collective's frame
  under it) is the rank's own worker gone while handing a batch over, not a peer's teardown
  (k10s_forensics/parsers/log_owners.py); the rank's cause is ``host-oom-kill``, as the loader's own
  ``DataLoader worker (pid 9382) is killed by signal: Killed.`` (queries/_incident.sql, docs/rules.md
  "Session 17: general fixes")."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from k10s_forensics.parsers.log_lines import BodyAssembler
from k10s_forensics.parsers.log_owners import LOADER_LOST_MESSAGE
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

_LOADER = "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py"
_C10D = "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
_MP = "/usr/lib/python3.10/multiprocessing"


def _exceptions(lines: list[str]) -> list[tuple]:
    a = BodyAssembler(None)
    for i, line in enumerate(lines):
        a.feed(i, line, None)
    return [(e.get("rank"), e["subkind"], e["error_type"], e.get("error_message"))
            for e in a.finish() if e["kind"] == "python_exception"]


def _queue(tag: str, call: str = "_try_get_data", carets: bool = False) -> list[str]:
    """A rank's traceback from its training loop into the DataLoader's queue and multiprocessing's connection."""
    lines = [f"{tag}Traceback (most recent call last):", f'{tag}  File "/workspace/train.py", line 100, in train',
             f"{tag}    for batch in loader:", f'{tag}  File "{_LOADER}", line 1130, in {call}',
             f"{tag}    data = self._data_queue.get(timeout=timeout)", f'{tag}  File "{_MP}/queues.py", line 122, in get',
             f"{tag}    return _ForkingPickler.loads(res)", f'{tag}  File "{_MP}/resource_sharer.py", line 86, in get_connection',
             f"{tag}    c = Client(address, authkey=process.current_process().authkey)",
             f'{tag}  File "{_MP}/connection.py", line 395, in _recv', f"{tag}    chunk = read(handle, remaining)"]
    return [x for line in lines for x in ([line, f"{tag}            ^^^^^^^^^^^^^^^^^^^^"] if carets and "    " in line[len(tag):len(tag) + 4] else [line])]


@pytest.mark.parametrize(("tag", "rank", "call", "carets", "last"), [
    ("[rank1]:", 1, "_try_get_data", True, "ConnectionResetError: [Errno 104] Connection reset by peer"),  # torchrun 2.x, py3.11
    ("", None, "_try_get_data", False, "ConnectionResetError: [Errno 104] Connection reset by peer"),  # an untagged paste
    ("[default3]:", None, "_get_data", False,  # --tee's local rank (resolved with the pod), the worker's socket gone
     "ConnectionRefusedError: [Errno 111] Connection refused"),
    ("[rank0]:", 0, "_next_data", True, "EOFError"),  # the worker's pipe closed before a whole message
    ("[1,2]<stderr>:", 2, "_try_get_data", False, "BrokenPipeError: [Errno 32] Broken pipe"),  # mpirun --tag-output
], ids=["reset-tagged", "reset-untagged", "refused-tee", "eof-bare", "broken-pipe-mpirun"])
def test_a_connection_error_in_the_loaders_queue_is_the_ranks_worker_lost(tag, rank, call, carets, last):
    got = _exceptions(_queue(tag, call, carets) + [tag + last])
    assert [(g[0], g[1]) for g in got] == [(rank, "raised")], got
    assert got[0][3].startswith(LOADER_LOST_MESSAGE)


def test_a_connection_error_of_a_collective_or_far_below_the_loader_stays_a_teardown():
    collective = _queue("[rank1]:") + [f'[rank1]:  File "{_C10D}", line 3913, in all_reduce', "[rank1]:    work.wait()",
                                       "[rank1]: RuntimeError: Connection reset by peer"]
    far = _queue("[rank1]:") + ["[rank1]:    x = 1"] * 61 + ["[rank1]: ConnectionResetError: [Errno 104] Connection reset by peer"]
    other = _queue("[rank1]:") + ["[rank2]: ConnectionResetError: [Errno 104] Connection reset by peer"]
    plain = ["[rank3]: Traceback (most recent call last):", '[rank3]:   File "/workspace/train.py", line 9, in f',
             "[rank3]: ConnectionResetError: [Errno 104] Connection reset by peer"]
    got = _exceptions(collective) + _exceptions(far) + _exceptions(other) + _exceptions(plain)
    assert [g[1] for g in got] == ["teardown"] * 4, got
    assert not [g for g in got if g[3].startswith(LOADER_LOST_MESSAGE)]


def test_another_exception_in_the_loaders_queue_keeps_its_words():
    got = _exceptions(_queue("[rank1]:") + ["[rank1]: KeyError: 'labels'"])
    assert got == [(1, "raised", "KeyError", "'labels'")]


def test_the_loaders_frame_is_a_candidate_line():
    assert re.search(PREFILTER_EVENT, f'[rank1]:   File "{_LOADER}", line 1293, in _try_get_data')


def test_the_rank_whose_worker_was_lost_is_named_host_oom_kill(tmp_path):
    from incident_kit import named_in_paste

    text = "\n".join(_queue("[rank1]:", carets=True) + ["[rank1]: ConnectionResetError: [Errno 104] Connection reset by peer"]
                     + [f"[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
                        f"[10.0.0.{r}]:4242" for r in (0, 2, 3)]) + "\n"
    named = named_in_paste(tmp_path, text, 2, 4, dt.datetime(2026, 11, 30, 2, 0, tzinfo=dt.timezone.utc))
    assert named == [("rank-failure", "host-oom-kill", [1])], named
