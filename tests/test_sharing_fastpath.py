"""The column fast path of redaction gives exactly the per-value rules, and keeps joins.

``ColumnRedactor`` (RE2 prefilters, distinct-segment replacement) must produce, value for
value and count for count, what ``Redactor.text`` / ``Redactor.exact`` give on each value:
checked on generated texts mixing names, prefixes of names, addresses, secrets and
separators. A strict-redacted simulated bundle keeps every derived table joinable.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from k10s_forensics.sharing.redact.bodies import Redactor
from k10s_forensics.sharing.redact.columns import ColumnRedactor
from k10s_forensics.sharing.redact.prefilter import SECRET_PREFILTER
from k10s_forensics.sharing.redact.pseudonym import Pseudonymizer
from k10s_forensics.sharing.redact.replace import TextReplacer
from k10s_forensics.sharing.redact.secrets import SecretScanner

NAMES = {"job-worker-1": "pod", "job-worker-10": "pod", "job": "job", "team-a": "namespace", "gpu-node-3": "node",
         "acme.example": "host", "falcon prod": "cluster", "ab": "label"}
PIECES = st.sampled_from([
    *NAMES, "job-worker-11", "xjob", "job_x", "pytorchjob-job-x", "10.0.3.17", "10.0.3.17:29500", "ip-10-0-3-17", "10-0-3-17",
    "1.2.3.4.5", "fe80::1", "2001:db8::7", "::", "a:b:c", "127.0.0.1", "DB_PASSWORD=hunter22x", "--api-key", "s3cr3t-value",
    "Bearer abcdefghijklmnop", "tokens/s", "max_tokens=512", "ghp_" + "a" * 36, "é", "İp-10-0-3-17", "\ue000", "Kelvin\u212a",
    "eyJabcdefghij.eyJabcdefghij.sig", "pod=\"job-worker-1\"", "DCGM_FI_DEV_GPU_UTIL{", "}", "7",
])
SEPARATORS = st.sampled_from([" ", "\n", "\"", ",", "=", "/", ".", "-", ":", "", "\t", "{", "}", "'", "@", "_"])
TEXTS = st.lists(st.tuples(PIECES, SEPARATORS), max_size=12).map(lambda xs: "".join(p + s for p, s in xs))


def _pair(key: bytes = b"k" * 32) -> tuple[Redactor, Redactor]:
    make = lambda: Redactor(SecretScanner(), TextReplacer(Pseudonymizer(key), dict(NAMES)))  # noqa: E731
    return make(), make()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), TEXTS), min_size=1, max_size=8))
def test_column_path_equals_value_path(values: list[str | None]) -> None:
    slow, fast = _pair()
    expected = [slow.text(v) for v in values]
    got = ColumnRedactor(fast).text(pa.array(values, pa.string())).to_pylist()
    assert got == expected
    assert fast.replacer.counts == slow.replacer.counts
    assert fast.replacer.distinct == slow.replacer.distinct
    assert fast.scanner.counts == slow.scanner.counts


PIECE_NAMES = {k: v for k, v in NAMES.items() if k != "falcon prod"}  # no odd name: the piece path applies


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(st.none(), TEXTS), min_size=1, max_size=8))
@example(["run --api-key s3cr3t-value", "DB_PASSWORD =hunter22x", "x\tpass: y"])
def test_piece_path_equals_value_path(values: list[str | None]) -> None:
    """Values cut into lines and last-space pieces, each distinct piece replaced once."""
    from k10s_forensics.sharing.redact import pieces

    old_share, pieces.MAX_DISTINCT_SHARE = pieces.MAX_DISTINCT_SHARE, 10.0  # always cut
    try:
        make = lambda: Redactor(SecretScanner(), TextReplacer(Pseudonymizer(b"k" * 32), dict(PIECE_NAMES)))  # noqa: E731
        slow, fast = make(), make()
        lines = ["\n".join(v.split("\t")) if v is not None else None for v in values]  # tabs become line breaks
        expected = [slow.text(v) for v in lines]
        columns = ColumnRedactor(fast)
        got = columns.text(pa.array(lines, pa.string()), key="t").to_pylist()
        assert got == expected
        assert fast.replacer.counts == slow.replacer.counts and fast.scanner.counts == slow.scanner.counts
        assert fast.replacer.distinct == slow.replacer.distinct
    finally:
        pieces.MAX_DISTINCT_SHARE = old_share


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.tuples(
    st.sampled_from(["pod", "namespace", "Hostname", "exported_pod", "xpod", "node", "gpu", "DCGM_FI_DEV_GPU_UTIL{pod"]),
    st.sampled_from(["=", " = ", "= ", "=\n"]),
    st.sampled_from(['"job-worker-1"', '"a b"', '"x.acme.example"', '"open', '""', '"team-a"']),
    st.sampled_from([",", "} 97\n", " ", "\n", "} 1.5e3 "])), max_size=6).map(lambda xs: "".join("".join(t) for t in xs)), min_size=1, max_size=4))
def test_scrape_labels_by_piece_equal_the_python_rule(bodies: list[str]) -> None:
    from k10s_forensics.sharing.redact import pieces
    from k10s_forensics.sharing.redact.collect import _apply, _scan_body
    from k10s_forensics.sharing.redact.vocab import Vocabulary

    old_share, pieces.MAX_DISTINCT_SHARE = pieces.MAX_DISTINCT_SHARE, 10.0
    try:
        expected, got = Vocabulary(), Vocabulary()
        for body in bodies:
            expected.add_text_labels(body)
        _apply(got, "scrapes", _scan_body("scrapes", pa.array(bodies, pa.string())))
        assert got.kinds == expected.kinds
    finally:
        pieces.MAX_DISTINCT_SHARE = old_share


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from([*NAMES, "job-worker-2", "10.0.3.17", "", "token=abcdefgh12"])), min_size=1, max_size=10))
def test_exact_column_equals_value_path(values: list[str | None]) -> None:
    slow, fast = _pair()
    expected = [slow.exact(v) for v in values]
    assert ColumnRedactor(fast).exact(pa.array(values, pa.large_string())).to_pylist() == expected
    assert fast.replacer.counts == slow.replacer.counts


def test_standard_level_column_path_only_masks_secrets() -> None:
    red = Redactor(SecretScanner(), None)
    values = ["step 3 tokens/s 5120", "DB_PASSWORD=hunter22x and job-worker-1", None, ""]
    assert ColumnRedactor(red).text(pa.array(values)).to_pylist() == [
        "step 3 tokens/s 5120", "DB_PASSWORD=[REDACTED:password] and job-worker-1", None, ""]


@pytest.mark.parametrize("text", ["DB_PASSWORD=x1", "--api-key v", "Authorization: Bearer abcdefghijklmn", "-----BEGIN RSA PRIVATE KEY-----",
                                  '"private_key": "x"', "AKIAABCDEFGHIJKLMNOP", "cookie: a=b"])
def test_secret_prefilter_selects_every_secret_shape(text: str) -> None:
    import pyarrow.compute as pc

    assert SecretScanner().scan(text) != text
    assert pc.match_substring_regex(pa.array([text]), SECRET_PREFILTER).to_pylist() == [True]


def test_strict_redaction_keeps_tables_joinable(tmp_path) -> None:
    simulate_mod = pytest.importorskip("k10s_forensics.simulate", reason="the simulator is not built yet")
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.engine import connect
    from k10s_forensics.rebuild.run import rebuild
    from k10s_forensics.sharing.redact import redact

    original = tmp_path / "orig"
    simulate_mod.simulate("oom-crashloop", original, seed=7, nodes=2, gpus_per_node=4, minutes=4)
    rebuild(Bundle.open(original))
    redact(original, tmp_path / "red", level="strict", key_file=tmp_path / "k.key", rebuild_tables=True)
    queries = {
        "ranks": "SELECT count(*) FROM ranks",
        "pods": "SELECT count(*) FROM pods",
        "gpu_samples": "SELECT count(*) FROM gpu_samples",
        "ranks-pods": "SELECT count(*) FROM ranks r JOIN pods p ON r.namespace = p.namespace AND r.pod = p.pod",
        "ranks-gpu_samples": "SELECT count(*) FROM ranks r JOIN gpu_samples g ON r.node = g.node AND r.gpu_uuid = g.gpu_uuid",
        "pods-nodes": "SELECT count(DISTINCT p.node) FROM pods p JOIN gpu_samples g ON p.node = g.node",
    }

    def counts(path):
        con = connect(Bundle.open(path))
        return {k: con.sql(q).fetchall()[0][0] for k, q in queries.items()}

    before, after = counts(original), counts(tmp_path / "red")
    assert before["ranks-pods"] > 0 and before["ranks-gpu_samples"] > 0
    assert after == before
    con = connect(Bundle.open(tmp_path / "red"))
    pods = {p for (p,) in con.sql("SELECT DISTINCT pod FROM ranks").fetchall()}
    assert pods and all(p.startswith("pod-") for p in pods)
