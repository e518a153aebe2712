"""HCCL's (Ascend) root-info topology exchange naming the ranks that never connected (session 37 leftovers; batch 211's
``hiascend-hcclug-ei0015-ranks1-3-5-7-not-connected``, the CANN HCCL guide's EI0015 page). The agents'
``TopoDetect ERROR occur !!! fault_type[1], fault_info["Failed to connect agent[1,3,5,7,]"]`` and the server's
``Broadcast Rank Basic Infos failed，connectFailedAgentIdList[...]`` list them; the server's ``total connected num is
[4]``, ``need connect rankNum is [8]`` and ``connected rankinfo[LINE 0]: [0000000000000000],...;`` list the others, and
the ranks of the stated world left out of complete rows never joined (log_hccl_topo.py). The page's lines run together
on one line, each process's records on separate lines as HCCL prints them, CANN's older (``[TopoInfoExchangeServer]``,
no world line) and newer (``[RankInfoDetectService::DisplayConnectedRanks]``) wordings, rows over two lines; contrasts
name no one: every rank connected, an empty list, the world never stated, rows a paste elided, the agent's own connect
timeout, another tool's ``Failed to connect agent[10.0.0.3]``. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)
PAGE = corpus_lines("hiascend-hcclug-ei0015-")

SRV = "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.{ms:03d} [topoinfo_exchange_server.cc:{ln}] [1041362]"
AGT = "[ERROR] HCCL(1041085,all_reduce_test):2025-11-21-01:20:01.630.{ms:03d} [topoinfo_exchange_base.cc:145] [1041085]"
OLD = "[ERROR] HCCL(340,python3.9):2026-07-15-19:50:49.176.{ms:03d} [topoinfo_exchange_server.cc:{ln}] [5590]"


def _ids(ranks) -> str:
    return ",".join(f"[{r:016d}]" for r in ranks)


def _rows(
    ranks: list[int],
    head: str,
    where: str = "[InitGroupStage][DisplayConnectionedRank]",
) -> list[str]:
    rows = [ranks[i : i + 8] for i in range(0, len(ranks), 8)]
    return [
        head.format(ms=145 + i, ln=517)
        + f"{where}connected rankinfo[LINE {i}]: {_ids(row)};"
        for i, row in enumerate(rows)
    ]


def _server(
    connected: list[int],
    world: int | None,
    head: str = SRV,
    where: str = "[InitGroupStage][DisplayConnectionedRank]",
    shown: int | None = None,
) -> list[str]:
    lines = [
        head.format(ms=966, ln=314)
        + "[InitGroupStage][RanktableDetect]topo exchange server get socket timeout! timeout[120 s]",
        head.format(ms=103, ln=501)
        + f"{where}total connected num is [{len(connected)}],line num is [{(len(connected) + 7) // 8}]",
    ]
    if world is not None:
        lines.append(
            head.format(ms=112, ln=503) + f"{where}need connect rankNum is [{world}]"
        )
    rows = _rows(connected, head, where)
    return lines + (rows if shown is None else rows[:shown] + ["... ..."])


def _agent(listed: str) -> list[str]:
    return [
        AGT.format(ms=122)
        + f"[InitGroupStage][RanktableDetect] TopoDetect ERROR occur !!! fault_type[1], "
        f'fault_info["Failed to connect agent[{listed}]"]',
        AGT.format(ms=557).replace(
            "topoinfo_exchange_base.cc:145", "topoinfo_exchange_agent.cc:552"
        )
        + "[InitGroupStage][RanktableDetect]rank num[8]is different with rank list size[4] in total topo rank info.",
    ]


#: key: (the pasted lines, processes per node, world, the ranks findings naming any name: [] for none)
CASES = {
    # the page's own paste: each process's records run together on one line
    "ei0015-page-as-pasted": (PAGE, None, None, [1, 3, 5, 7]),
    "ei0015-page-layout-8": (PAGE, 8, 8, [1, 3, 5, 7]),
    "ei0015-page-layout-4x2": (PAGE, 4, 8, [1, 3, 5, 7]),
    # one record a line, as HCCL prints them: the server alone, the agent alone, both
    "server-lines-1-3-5-7": (_server([0, 2, 4, 6], 8), None, None, [1, 3, 5, 7]),
    "agent-line-1-3-5-7": (_agent("1,3,5,7,"), None, None, [1, 3, 5, 7]),
    "server-and-agent-lines": (
        _server([0, 2, 4, 6], 8) + _agent("1,3,5,7,"),
        None,
        None,
        [1, 3, 5, 7],
    ),
    # one rank missing; sixteen ranks over two rows (the newer source's wording)
    "server-one-missing-rank-7": (_server(list(range(7)), 8), None, None, [7]),
    "server-two-rows-missing-11": (
        _server(
            [r for r in range(16) if r != 11],
            16,
            where="[RankInfoDetectService::DisplayConnectedRanks] ",
        ),
        None,
        None,
        [11],
    ),
    # another list: the agents' of a wider world, the server's explicit list (CANN's 2048-rank page, shortened)
    "agent-line-10-17": (_agent("10,17,"), None, None, [10, 17]),
    "server-failed-agent-id-list": (
        [
            OLD.format(ms=492, ln=115)
            + "[TopoInfoExchangeServer][Setup]Broadcast Rank Basic Infos "
            "failed，connectFailedAgentIdList[10,17,40,]"
        ],
        None,
        None,
        [10, 17, 40],
    ),
    # contrasts: every rank connected, an empty list, the world never stated (older CANN), rows elided by the paste ...
    "server-all-connected": (_server(list(range(8)), 8), None, None, []),
    "agent-empty-list": (_agent(""), None, None, []),
    "server-old-no-world": (
        _server(
            [0, 2, 4, 6],
            None,
            head=OLD,
            where="[TopoInfoExchangeServer][DisplayConnectionedRank]",
        ),
        None,
        None,
        [],
    ),
    "server-rows-elided": (
        _server([r for r in range(16) if r != 11], 16, shown=1),
        None,
        None,
        [],
    ),
    # ... the agent's own connect timeout, another tool's agent by address
    "agent-connect-timeout": (
        [
            "[ERROR] HCCL(7988,all_reduce_test):2025-03-19-04:16:13.978.979 [topoinfo_exchange_agent.cc:190] [7988][Get][Connection]"
            "topo exchange agent get socket timeout! timeout[120]",
            "[ERROR] HCCL(7988,all_reduce_test):2025-03-19-04:16:13.978.995 [topoinfo_exchange_agent.cc:41] [7988]"
            "[TopoInfoExchangeAgent][Setup]TopoExchangeAgent: connect server[172.16.0.0 : 1888] failed",
        ],
        None,
        None,
        [],
    ),
    "other-tool-agent-address": (
        ["2025-03-19 04:16:13 ERROR Failed to connect agent[10.0.0.3]"],
        None,
        None,
        [],
    ),
}
BATCHED = Batched("s37hccl", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_hccl_topology_exchange_names_the_ranks_never_connected(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    want = CASES[key][3]
    assert sorted({r for f in named for r in f["ranks"]}) == want, got
    assert not want or any(f["cause"] == "never-joined" for f in named), got
