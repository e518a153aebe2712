"""The thirty-second set of recorded runs (held out when recorded): PyTorch's flight recorder as users use it with
gloo. Each node is ``torchrun`` (c10d rendezvous, 2 agents x 2 processes) with ``TORCH_FR_BUFFER_SIZE`` set and its
own ``TORCH_FR_DUMP_TEMP_FILE``; the program (tests/tools/t32_worker.py) dumps the recorder when a collective fails
and when training ends (gloo has no watchdog that dumps it: torch 2.13 and 2.14 record gloo's collectives but dump
only on an explicit ``_dump_fr_trace()``). Kept beside the node logs: each node's dump files as a capture of its pod
finds them (``fr-dumps/node<N>/nccl_trace_rank_<R>``, the bytes torch wrote) and ``fr_trace.txt``: what
``torchfrtrace`` printed on all of them gathered in one folder, as a user pastes it (the plain command first; where
it refused a missing rank's dump, again with ``--allow-incomplete-ranks``). Imported by torch_scenarios.py (its ``S``
builds each one; ``keep`` is called once a run ended).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = "t32_worker.py"
LAUNCHERS = ("frrun",)
FR_ROOT = Path(tempfile.gettempdir()) / "k10s-t32-fr"
PREFIX = "nccl_trace_rank_"
FR = {"K10S_GLOO_TIMEOUT_S": "3", "TORCH_FR_BUFFER_SIZE": "2000"}


def scenarios(S) -> list[dict]:
    fr = {"launcher": "frrun", "env": FR}
    return [
        # rank 3 skips step 3's all-reduce: one collective ahead, it ends while its peers wait in their last all-reduce
        S("t32-fr-skip-allreduce-rank3", fault="skip", rank=3, cause="never-joined", **fr),
        # rank 1 broadcasts where its peers all-reduce
        S("t32-fr-other-op-broadcast-rank1", fault="other-op", rank=1, cause="collective-mismatch", **fr),
        # rank 2 all-reduces a bucket one element longer
        S("t32-fr-size-mismatch-rank2", fault="size", rank=2, cause="collective-mismatch", **fr),
        # rank 1 stuck in its own compute loop: its peers time out in the all-reduce (gloo 3 s)
        S("t32-fr-stuck-compute-rank1", fault="compute", rank=1, cause="never-joined", **fr),
        # rank 2 SIGKILLed between its forward and backward
        S("t32-fr-sigkill-midstep-rank2", fault="sigkill", rank=2, cause="host-oom-kill", **fr),
        # controls: no rank may be named
        # every rank receives from the next before sending: all time out alike in their recv
        S("t32-fr-p2p-ring-all-timeout", fault="p2p-cycle", rank=-1, culprits=[], **fr),
        # a clean run: every rank dumps the recorder at the end
        S("t32-fr-clean", culprits=[], **fr),
    ]


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each agent's command: ``env TORCH_FR_DUMP_TEMP_FILE=<its own folder>/nccl_trace_rank_ torchrun …``."""
    out = []
    for i in range(sc["agents"]):
        where = FR_ROOT / sc["name"] / f"agent{i}"
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        out.append(["env", f"TORCH_FR_DUMP_TEMP_FILE={where}/{PREFIX}", str(BIN / "torchrun"), "--nnodes", str(sc["agents"]),
                    "--nproc-per-node", str(sc["nproc"]), "--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{port}",
                    "--rdzv-id", sc["name"], *opts, str(HERE / WORKER)])
    return out


def keep(sc: dict, dest: Path, agent_names: list[str], scrub) -> None:
    """Each node's dumps (by node rank) and ``torchfrtrace``'s output on all of them (``fr_trace.txt``)."""
    if sc["launcher"] not in LAUNCHERS:
        return
    every = Path(tempfile.mkdtemp(prefix="k10s-t32-all-"))
    for node, name in enumerate(agent_names):
        for f in sorted((FR_ROOT / sc["name"] / name).glob(f"{PREFIX}*")):
            (dest / "fr-dumps" / f"node{node}").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest / "fr-dumps" / f"node{node}" / f.name)
            shutil.copyfile(f, every / f.name)
    text = []
    for extra in ([], ["--allow-incomplete-ranks"]):
        cmd = [str(BIN / "torchfrtrace"), *extra, str(every)]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        text.append(f"$ torchfrtrace {' '.join(extra)}{' ' if extra else ''}./fr-dumps\n" + run.stdout + run.stderr)
        if run.returncode == 0 and "--allow-incomplete-ranks" not in (run.stdout + run.stderr):
            break
    (dest / "fr_trace.txt").write_text(scrub("".join(text).replace(str(every), "./fr-dumps")), encoding="utf-8")
    shutil.rmtree(every, ignore_errors=True)
    shutil.rmtree(FR_ROOT / sc["name"], ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it: the pod's own dump prefix."""
    if part.startswith("TORCH_FR_DUMP_TEMP_FILE="):
        return f"TORCH_FR_DUMP_TEMP_FILE=/tmp/{PREFIX}"
    return "torchrun" if part == str(BIN / "torchrun") else part


__all__ = ["LAUNCHERS", "commands", "keep", "public", "scenarios"]
