"""The tree-free nvidia-smi XML path gives exactly the tree parser's rows, or steps aside.

Both paths (``parse_nvidia_smi_xml(text)`` and ``parse_nvidia_smi_xml(text, fast=False)``) on
every real sample, every simulated document of the sample bundles, hand-made variants (odd
whitespace, CR line ends, ``<tag/>``, N/A forms, missing and repeated fields), markup the fast
path must leave to ElementTree, and hypothesis-mutated documents (tests/fuzz_kit.py's byte
mutations plus edits that keep the XML well-formed, so that the fast path really runs).
Rows are compared value *and* type, key order included; exceptions by type and message.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import REAL_SAMPLES, SAMPLE_BUNDLES
from fuzz_kit import CASES, FUZZ_SETTINGS, mutate, ops_strategy, time_bound
from hypothesis import given
from hypothesis import strategies as st

from k10s_forensics.parsers import nvidia_smi_fast
from k10s_forensics.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

XML_DIR = REAL_SAMPLES / "nvidia-smi-xml"
REAL = sorted(p.name for p in XML_DIR.iterdir())


def _real(name: str) -> str:
    return (XML_DIR / name).read_text(encoding="utf-8", errors="replace")


def _simulated() -> list[str]:
    docs = []
    for exec_file in sorted(Path(SAMPLE_BUNDLES).glob("*/raw/exec.parquet")):
        rows = pq.read_table(exec_file, columns=["source", "stdout"]).to_pylist()
        docs += [r["stdout"] for r in rows if r["source"] == "nvidia-smi-xml" and r["stdout"]][:4]
    return docs


SIMULATED = _simulated()
SEEDS = [_real(name) for name in REAL] + SIMULATED[::7]


def _canon(rows: list[dict]) -> list[list[tuple]]:
    return [[(k, type(v).__name__, v) for k, v in row.items()] for row in rows]


def _outcome(text: str, fast: bool):
    try:
        gpus, samples, issues = parse_nvidia_smi_xml(text, fast=fast)
    except Exception as exc:  # noqa: BLE001 - the comparison includes how a path fails
        return ("raised", type(exc).__name__, str(exc))
    return ("rows", _canon(gpus), _canon(samples), issues)


def _took_fast_path(text: str) -> bool:
    """Whether the fast path reads ``text``; it may raise only what the tree path raises too
    (OverflowError of an absurd number): anything else would be a bug hidden by the fallback."""
    start = text.find("<")
    try:
        return start >= 0 and nvidia_smi_fast.parse(text[start:]) is not None
    except OverflowError:
        return False


def assert_same(text: str) -> bool:
    """Both paths agree on ``text``; returns whether the fast path read it."""
    tree = _outcome(text, fast=False)
    for _ in range(2):  # the first sight of a skeleton goes to the tree path, the second builds its plan
        assert _outcome(text, fast=True) == tree
    return _took_fast_path(text)


@pytest.mark.parametrize("name", REAL)
def test_fast_path_reads_every_real_sample_exactly_as_the_tree_parser(name: str) -> None:
    text = _real(name)
    assert assert_same(text), "the fast path should read every real nvidia-smi sample"
    assert parse_nvidia_smi_xml(text)[0], "and find GPUs in it"


def test_fast_path_reads_every_simulated_document_exactly_as_the_tree_parser() -> None:
    assert len(SIMULATED) > 50
    assert all(assert_same(text) for text in SIMULATED)


def _variants(text: str) -> dict[str, str]:
    leaf = re.compile(r"<(\w+)>([^<]*)</\1>")
    return {
        "crlf": text.replace("\n", "\r\n"),
        "cr only": text.replace("\n", "\r"),
        "cr inside values": leaf.sub(lambda m: f"<{m[1]}>\r {m[2]}\r\nx\r</{m[1]}>", text, count=40),
        "tabs and trailing spaces": leaf.sub(lambda m: f"<{m[1]}>\t{m[2]}  \n</{m[1]}>", text),
        "nbsp around values": leaf.sub(lambda m: f"<{m[1]}>\u00a0{m[2]}\u2003</{m[1]}>", text),
        "self-closing empties": leaf.sub(lambda m: f"<{m[1]}/>" if hash(m[1]) % 3 == 0 else m[0], text),
        "empty values": leaf.sub(lambda m: f"<{m[1]}></{m[1]}>" if len(m[1]) % 2 else m[0], text),
        "N/A everywhere": leaf.sub(lambda m: f"<{m[1]}>[N/A]</{m[1]}>" if m[1] != "uuid" else m[0], text),
        "deprecated": leaf.sub(lambda m: f"<{m[1]}>Requested functionality has been deprecated</{m[1]}>", text),
        "no uuid": re.sub(r"<uuid>[^<]*</uuid>", "", text, count=1),
        "no pci_bus_id": re.sub(r"<pci_bus_id>[^<]*</pci_bus_id>", "", text),
        "no pci_bus_id nor id": re.sub(r'<gpu id="[^"]*">', "<gpu>", re.sub(r"<pci_bus_id>[^<]*</pci_bus_id>", "", text)),
        "spaces in tags": re.sub(r"<(/?)(\w+)>", r"<\1\2  >", text).replace('<gpu id=', '<gpu\n\tid='),
        "repeated blocks": re.sub(r"(<utilization>.*?</utilization>)", r"\1\1", text, flags=re.DOTALL),
        "old ecc schema": re.sub(r"<volatile>.*?</volatile>", "<volatile><single_bit><total>3</total></single_bit>"
                                 "<double_bit><total>N/A</total></double_bit></volatile>", text, flags=re.DOTALL),
        "throttle both blocks": text.replace("</clocks_event_reasons>", "</clocks_event_reasons><clocks_throttle_reasons>"
                                             "<clocks_throttle_reason_hw_slowdown>Active</clocks_throttle_reason_hw_slowdown>"
                                             "</clocks_throttle_reasons>"),
        "throttle unknown states": text.replace(">Not Active<", "> maybe <"),
        "mig uuid of its own": text.replace("<gpu_instance_id>", "<uuid>MIG-1234</uuid><gpu_instance_id>"),
        "huge number": leaf.sub(lambda m: f"<{m[1]}>1e999 W</{m[1]}>" if m[1] == "total" else m[0], text),
        "no gpu": re.sub(r"<gpu .*</gpu>", "", text, flags=re.DOTALL),
        "leading noise": "WARNING: infoROM is corrupted\n" + text,
        "xml decl single quotes standalone": re.sub(r"<\?xml[^>]*\?>", "<?xml version='1.0' encoding='UTF-8' standalone='no'?>", text),
        "no prolog": re.sub(r"<[?!][^>]*>", "", text),
        "non-ascii values": text.replace("<product_name>", "<product_name>Gr\u00e4fik \u00b5 "),
    }


VARIANT_NAMES = sorted(_variants("<x/>"))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_hand_made_variants_agree(variant: str) -> None:
    texts = [_variants(t)[variant] for t in SEEDS]
    fast = [assert_same(text) for text in texts]
    if variant not in ("huge number",):  # overflow is raised by both paths; the fast one hands it over
        assert any(fast), f"{variant}: the fast path should read these"


FALLBACK = {
    "entity declaration": ("<nvidia_smi_log>", '<!DOCTYPE n [<!ENTITY a "b">]><nvidia_smi_log>'),
    "entity reference": ("<product_name>", "<product_name>A &amp; B "),
    "character reference": ("<product_name>", "<product_name>&#65;"),
    "CDATA": ("<product_name>", "<product_name><![CDATA[x<y]]>"),
    "comment": ("<uuid>", "<!-- a comment --><uuid>"),
    "processing instruction": ("<uuid>", "<?k10s x?><uuid>"),
    "internal DTD subset": ("<nvidia_smi_log>", "<!DOCTYPE nvidia_smi_log [ <!ELEMENT a ANY> ]><nvidia_smi_log>"),
    "> in a text": ("<product_name>", "<product_name>a > b "),
    "> in an attribute": ('<gpu id="', '<gpu x="a>b" id="'),
    "NUL": ("<product_name>", "<product_name>\x00"),
    "C1 control": ("<product_name>", "<product_name>\x85"),
    "vertical tab": ("<product_name>", "<product_name>\x0b"),
    "mismatched tag": ("</uuid>", "</uuidx>"),
    "namespace": ("<nvidia_smi_log>", '<nvidia_smi_log xmlns="urn:x">'),
    "unbound prefix": ("<uuid>", "<a:uuid>"),
    "junk after root": ("</nvidia_smi_log>", "</nvidia_smi_log>junk"),
    "element after root": ("</nvidia_smi_log>", "</nvidia_smi_log><x/>"),
    "text before root": ("<nvidia_smi_log>", "text<nvidia_smi_log>"),
    "other root": ("nvidia_smi_log>", "nvidia_smi_logx>"),
    "duplicate attribute": ('<gpu id="', '<gpu id="1" id="'),
    "truncated": ("</nvidia_smi_log>", "</nvidia_"),
}


@pytest.mark.parametrize("case", sorted(FALLBACK))
def test_markup_the_fast_path_does_not_know_goes_to_the_tree_parser(case: str) -> None:
    old, new = FALLBACK[case]
    for seed in SEEDS[:3] + SIMULATED[:2]:
        text = seed.replace(old, new)
        assert text != seed
        assert not assert_same(text), f"{case}: the fast path must step aside"


@FUZZ_SETTINGS
@given(st.integers(0, len(SEEDS) - 1), st.integers(0, len(SEEDS) - 1), ops_strategy())
def test_mutated_documents_agree(i: int, j: int, ops) -> None:
    text = mutate(SEEDS[i], ops, SEEDS[j])
    CASES["xml fast vs tree (bytes)"] += 1
    with time_bound():
        assert_same(text)


_TAG = re.compile(r"<(/?)([A-Za-z_][\w.-]*)([^<>]*)>")
_VALUES = ("N/A", "[N/A]", "", "  42  ", "7 MiB", "1e3 W", "-5 W", "Active", "Not Active", "Yes", "No", "MIG-abc", "9" * 30,
           "\u00a0 7\r\n", "Requested functionality has been deprecated", "0x1F", "GPU-x", "00000000:3B:00.0", "3")
_NAMES = ("uuid", "total", "used", "power_draw", "instant_power_draw", "single_bit", "gpu_instance_id", "mig_device",
          "clocks_throttle_reason_hw_slowdown", "gpu", "pci_bus_id", "retired_count", "profile", "current_mig", "x")


def _edit(text: str, op: str, a: int, b: int) -> str:
    """One edit that keeps the document well-formed (or nearly: the paths must agree either way)."""
    tags = list(_TAG.finditer(text))
    if not tags:
        return text
    m = tags[a % len(tags)]
    if op == "value" and not m[1] and not m[3].endswith("/"):
        end = text.find("<", m.end())
        return text[: m.end()] + _VALUES[b % len(_VALUES)] + text[end:] if end > 0 else text
    if op == "space":
        return text[: m.end()] + (" ", "\t", "\n", "\r\n", "\r", "\u00a0")[b % 6] + text[m.end():]
    if op in ("rename", "drop", "dup", "selfclose") and not m[1]:
        close = text.find(f"</{m[2]}>", m.end())
        if close < 0:
            return text
        whole, inner = text[m.start(): close + len(m[2]) + 3], text[m.end(): close]
        if op == "rename":
            name = _NAMES[b % len(_NAMES)]
            return text[: m.start()] + f"<{name}{m[3]}>{inner}</{name}>" + text[close + len(m[2]) + 3:]
        swap = {"drop": "", "dup": whole * 2, "selfclose": f"<{m[2]}/>"}[op]
        return text[: m.start()] + swap + text[close + len(m[2]) + 3:]
    if op == "attr" and not m[1]:
        return text[: m.end() - 1] + (' a="1"', ' id="00000000:AA:00.0"', '\n\tb="x\ty"', " c='q'")[b % 4] + text[m.end() - 1:]
    return text


@FUZZ_SETTINGS
@given(st.integers(0, len(SEEDS) - 1),
       st.lists(st.tuples(st.sampled_from(("value", "space", "rename", "drop", "dup", "selfclose", "attr")),
                          st.integers(0, 1 << 20), st.integers(0, 1 << 10)), min_size=1, max_size=6))
def test_well_formed_edits_agree(i: int, edits) -> None:
    text = SEEDS[i]
    for op, a, b in edits:
        text = _edit(text, op, a, b)
    CASES["xml fast vs tree (edits)"] += 1
    if assert_same(text):
        CASES["xml fast vs tree (edits, fast path)"] += 1


def test_plan_cache_stays_bounded(monkeypatch) -> None:
    monkeypatch.setattr(nvidia_smi_fast, "_PLANS", {})
    monkeypatch.setattr(nvidia_smi_fast, "_MAX_PLANS", 4)
    seed = SIMULATED[0]
    for n in range(10):  # ten skeletons: a different extra element each time
        assert assert_same(seed.replace("<uuid>", f"<extra_{n}/><uuid>", 1))
    assert 1 <= len(nvidia_smi_fast._PLANS) <= 4


def test_a_skeleton_gets_its_plan_on_second_sight(monkeypatch) -> None:
    monkeypatch.setattr(nvidia_smi_fast, "_PLANS", {})
    monkeypatch.setattr(nvidia_smi_fast, "_SEEN", set())
    body = SIMULATED[0][SIMULATED[0].find("<"):]
    assert nvidia_smi_fast.parse(body) is None and not nvidia_smi_fast._PLANS  # first sight: the tree path reads it
    assert nvidia_smi_fast.parse(body) is not None and len(nvidia_smi_fast._PLANS) == 1
