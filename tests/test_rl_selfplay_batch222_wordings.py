"""Multi-agent and self-play RL under RLlib, Ray Tune and their own process pools (real incidents batch 222), pinned as
read. Right: RLlib's actor manager ``Ray error, taking actor 1 out of service`` after a RolloutWorker's creation task
raised in the PettingZoo wrapper (ray-project/ray#44364) and ``taking actor 4 out of service`` with the PPO trainer's
``add_workers`` re-raising it (LucasAlegre/sumo-rl#149) name no one: the actor-manager index is not a torch rank and
the env creator is every rollout worker's code; Ray Tune's ``Trials did not complete`` with a raylet ``Broken pipe``
(Replicable-MARL/MARLlib#88), muzero-general's ``ReplayBuffer.get_batch()`` ``probabilities contain NaN``
(werner-duvaud/muzero-general#40) and HARL's env subprocess ``Process Process-10:`` relaunching StarCraft II
(oxwhirl/smac#123) name no one either, laid out on one node of four or eight too. Miss, left NOT_YET: a commenter's
two-line trace of four RLlib learners, ``learner 3: ... <-- opposite order`` (ray-project/ray#63819, rank 3's module
order diverges) names no one. No rule changed for the batch (measure only). Pasted logs through ``k10s
import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)

LEARNER3_ORDER = corpus_lines("ray-63819-")
RPS_ACTOR1 = corpus_lines("ray-44364-")
SUMO_ACTOR4 = corpus_lines("sumo-rl-149-")
TUNE_TRIALS = corpus_lines("MARLlib-88-")
REPLAY_NAN = corpus_lines("muzero-general-40-")
ENV_PROCESS10 = corpus_lines("smac-123-")

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # right as collected (controls)
    "rps-actor1-out-of-service-as-pasted": (RPS_ACTOR1, None, None, None, None),
    "rps-actor1-out-of-service-layout-4": (RPS_ACTOR1, 4, 4, None, None),
    "sumo-actor4-out-of-service-as-pasted": (SUMO_ACTOR4, None, None, None, None),
    "sumo-actor4-out-of-service-layout-8": (SUMO_ACTOR4, 8, 8, None, None),
    "tune-trials-did-not-complete-as-pasted": (TUNE_TRIALS, None, None, None, None),
    "replay-buffer-nan-as-pasted": (REPLAY_NAN, None, None, None, None),
    "replay-buffer-nan-layout-4": (REPLAY_NAN, 4, 4, None, None),
    "env-process10-as-pasted": (ENV_PROCESS10, None, None, None, None),
    "env-process10-layout-8": (ENV_PROCESS10, 8, 8, None, None),
    # miss as read (NOT_YET)
    "learner3-opposite-order-layout-4-miss": (LEARNER3_ORDER, 4, 4, None, None),
}
BATCHED = Batched("b222", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rl_selfplay_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
