"""The same exception raised to the letter by two ranks, seconds apart (docs/rules.md, "Session 63: the same exception
to the letter").

Two ranks on two nodes raise one exception, type and message alike to the letter (a configuration check every rank
runs), stamped more than a second apart: a launcher that prints each failure only after tearing the failed process's
siblings down (mp.spawn's one `-- Process N terminated` report per node) stamps them when it prints, 1.003 s apart in
the fifty-seventh launcher set's 2.14.1 recording, which named the earlier rank critical. Within ten seconds such a pair
now fails them alike: no single culprit. Contrasts: the same type with each rank's own numbers in the message, a victim's
different error after the culprit's, and the same message further apart than ten seconds keep the first rank named.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from test_t51_launcher_shapes import SIGTERM, _stamp, _steps, _table, _tb
from torch_runs_kit import CAPTURED

CONFIG = ("ValueError: config: optimizer.lr_schedule 'cosine_restarts' needs optimizer.warmup_steps > 0 (got 0) at step 8")
CLOSED = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
          "[127.0.0.1]:20687. This is typically caused by a remote worker crashing.")


def _at(seconds: float) -> str:
    """A clock ``seconds`` after 04:36:24 (minutes:seconds.micro, as the shapes' stamps are written)."""
    s = 24.0 + seconds
    return f"{36 + int(s // 60):02d}:{s % 60:09.6f}"


def _two_nodes(first_err: str, second_err: str, gap_s: float) -> list[str]:
    """Node 0's rank 1 raises ``first_err`` at 04:36:24, node 1's rank 3 ``second_err`` ``gap_s`` later; each node's
    agent SIGTERMs its other rank and reports its failed one as the root cause."""
    t0, t1 = _at(0.0), _at(gap_s)
    node0 = _steps(0) + _steps(1) + _tb(t0, 1, "[rank{r}]: " + first_err) + [
        (_at(0.2), SIGTERM.format(t=_at(0.2), agent=140, pid=201))] + _table(_at(0.4), (1, 1, 202, 1), (0, 0, 201, -15))
    node1 = _steps(2) + _steps(3) + _tb(t1, 3, "[rank{r}]: " + second_err) + [
        (_at(gap_s + 0.2), SIGTERM.format(t=_at(gap_s + 0.2), agent=150, pid=301))] + _table(
        _at(gap_s + 0.4), (3, 1, 302, 1), (2, 0, 301, -15))
    return [_stamp(node0), _stamp(node1)]


SETS = [
    ("alike-0.5s", _two_nodes(CONFIG, CONFIG, 0.5), [], None),
    ("alike-1.003s", _two_nodes(CONFIG, CONFIG, 1.003), [], None),
    ("alike-4s", _two_nodes(CONFIG, CONFIG, 4.0), [], None),
    ("alike-9s", _two_nodes(CONFIG, CONFIG, 9.0), [], None),
    # contrasts: the first rank stays named
    ("alike-30s", _two_nodes(CONFIG, CONFIG, 30.0), [1], "python-exception"),
    ("own-numbers-3s", _two_nodes(CONFIG, CONFIG.replace("(got 0) at step 8", "(got 0) at step 9"), 3.0), [1],
     "python-exception"),
    ("victim-closed-3s", _two_nodes("RuntimeError: bad batch at step 8: sample 17 has no tokens", CLOSED, 3.0), [1],
     "python-exception"),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    return analyze_node_sets(SETS, tmp_path_factory.mktemp("same-exception"), CAPTURED, nproc=lambda name: 2)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, s[2], s[3]) for i, s in enumerate(SETS)], ids=[s[0] for s in SETS])
def test_the_same_exception_to_the_letter(findings, i, want, cause):
    assert_names(findings, i, want, cause)
