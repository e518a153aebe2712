"""dcgm-exporter: the series memo kept across batches of a rebuild changes nothing. Every real
sample, parsed batch after batch with one LabelCache (memo warm, samples repeated and mixed),
gives exactly the rows and stats of a fresh parse of each batch."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from conftest import REAL_SAMPLES
from k10s_forensics.parsers import promtext
from k10s_forensics.parsers.dcgm import LabelCache, parse_dcgm_bodies

TS = pa.timestamp("us", tz="UTC")


def _parse(texts: list[str], cache: LabelCache) -> tuple[list[dict], dict]:
    at = [dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=10 * i) for i in range(len(texts))]
    table, stats = parse_dcgm_bodies(pa.array(texts, pa.string()), pa.array(at, TS), pa.array(["n"] * len(texts)), cache)
    stats = {k: v for k, v in stats.items() if k != "row_ident"}
    return table.to_pylist(), stats


def test_warm_memo_gives_the_fresh_parse(monkeypatch):
    texts = [p.read_text() for p in sorted((REAL_SAMPLES / "dcgm-exporter").iterdir()) if p.suffix == ".prom"]
    assert len(texts) >= 8
    batches = [texts, texts[::-1], [t.replace("\n", "\n\n") for t in texts], texts[:3] + ["bad line {\n"] + texts[3:]]
    warm = LabelCache()
    for batch in batches:
        got = _parse(batch, warm)
        fresh_cache = LabelCache()
        fresh_cache.identities, fresh_cache._by_key, fresh_cache.ids = list(warm.identities), dict(warm._by_key), dict(warm.ids)
        fresh_cache.series = {}  # same device ids, no memo
        assert got == _parse(batch, fresh_cache)
    assert len(warm.series) > 50  # the memo was used


def test_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(promtext, "MEMO_ENTRIES", 3)
    memo: dict = {}
    text = "".join(f'm{i}{{gpu="0"}} {i}\n' for i in range(10))
    first = promtext.split_exposition(pa.array([text]), memo=memo)
    again = promtext.split_exposition(pa.array([text]), memo=memo)  # memo over the bound: cleared first
    assert len(memo) == 10 and first.names == again.names and (first.value == again.value).all()
