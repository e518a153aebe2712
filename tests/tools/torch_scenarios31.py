"""The thirty-first set of recorded runs (held out when recorded): torchrun as Kubernetes training operators start it.
Each node's command is the pod's: ``torchrun t31_worker.py`` with no flag at all, configured only from the ``PET_*``
environment (torchrun reads ``PET_<FLAG>`` as each flag's default), wrapped in the pod's shell command with a preamble
that prints the environment:

* ``pet-static`` (Kubeflow Trainer v2's torch runtime on a JobSet): ``PET_NNODES``, ``PET_NPROC_PER_NODE``,
  ``PET_MASTER_ADDR``, ``PET_MASTER_PORT``, the node rank taken from the Indexed Job's ``JOB_COMPLETION_INDEX``
  (``export PET_NODE_RANK=$JOB_COMPLETION_INDEX``), in ``bash -c 'set -ex; …'`` (bash's ``+ …`` trace lines);
* ``pet-c10d`` (training-operator v1 with an elastic policy): ``PET_RDZV_BACKEND=c10d``, ``PET_RDZV_ENDPOINT``,
  ``PET_RDZV_ID``, ``PET_NNODES``, ``PET_NPROC_PER_NODE``, in ``sh -c`` with an ``echo`` and ``printenv`` preamble.

``kubelet_restarts``: the container is restarted by the kubelet (``restartPolicy: OnFailure``): the same commands run
again once the first attempt ended; the first attempt's log is kept as ``node<N>.previous.log`` (``kubectl logs
--previous``). ``attempt_faults``: each attempt's ``fault:rank`` (the program's data differs between the containers'
runs; K10S_FAULT and K10S_FAULT_RANK per attempt). Imported by torch_scenarios.py (its ``S`` builds each one); the program: tests/tools/t31_worker.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKER = "t31_worker.py"
LAUNCHERS = ("pet-static", "pet-c10d")
SHORT = {"K10S_GLOO_TIMEOUT_S": "3"}


def scenarios(S) -> list[dict]:
    st, c10d = {"launcher": "pet-static"}, {"launcher": "pet-c10d"}
    return [
        # rank 1 (node 0's local rank 1) raises KeyError; Trainer v2's static PET_* set-up, bash -c 'set -ex'
        S("t31-pet-static-jobindex-keyerror-rank1", fault="keyerror", rank=1, cause="python-exception", env=SHORT, **st),
        # rank 3 SIGKILLed; training-operator v1's elastic PET_RDZV_* set-up, sh -c with printenv
        S("t31-pet-c10d-sh-sigkill-rank3", fault="sigkill", rank=3, cause="host-oom-kill", env=SHORT, **c10d),
        # rank 2 segfaults; the kubelet restarts both containers (OnFailure) and rank 2 segfaults again
        {**S("t31-pet-static-kubelet-restart-segfault-rank2", fault="segfault", rank=2, cause="segfault", env=SHORT, **st),
         "kubelet_restarts": 1},
        # the kubelet restarts both containers after rank 1's KeyError; in the new containers rank 3 segfaults (the truth,
        # as the earlier sets' moving restarts: the last attempt's culprit)
        {**S("t31-pet-static-kubelet-restart-moving-rank1-then-rank3", fault="keyerror", rank=3, cause="segfault", env=SHORT, **st),
         "kubelet_restarts": 1, "attempt_faults": ["keyerror:1", "segfault:3"]},
        # rank 1 never calls init_process_group: its peers' set-up times out waiting for it
        S("t31-pet-static-never-joins-rank1", fault="never-joins", rank=1, cause="never-joined", env=SHORT, **st),
        # rank 2 hangs before its step's all-reduce; its peers time out in the collective (gloo 3 s)
        S("t31-pet-c10d-sh-hang-allreduce-rank2", fault="hang", rank=2, cause="never-joined", env=SHORT, **c10d),
        # controls: no rank may be named
        # every pod's PET_NPROC_PER_NODE is a typo ("2gpu"): every agent fails alike before starting any worker
        {**S("t31-pet-static-bad-nproc-common-mode", culprits=[], env=SHORT, **st), "pet_nproc": "2gpu"},
        # a clean run under sh -c's preamble
        S("t31-pet-c10d-sh-clean", culprits=[], env=SHORT, **c10d),
    ]


def _env_lines(kind: str) -> str:
    if kind == "pet-static":
        return "env | grep -E '^(PET_|JOB_COMPLETION_INDEX|MASTER_)' | sort"
    return "printenv | grep PET_ | sort"


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each pod's command (``env`` first: what the pod spec's env gives it), in start order (= completion index)."""
    nodes, nproc = sc["agents"], sc.get("pet_nproc", str(sc["nproc"]))
    out = []
    for i in range(nodes):
        env = ["env", f"PATH={BIN}:/usr/bin:/bin", f"PYTHONPATH={HERE}", f"PET_NNODES={nodes}", f"PET_NPROC_PER_NODE={nproc}"]
        if sc["launcher"] == "pet-static":
            env += ["PET_MASTER_ADDR=127.0.0.1", f"PET_MASTER_PORT={port}", f"JOB_COMPLETION_INDEX={i}"]
            script = (f"set -ex; export PET_NODE_RANK=${{JOB_COMPLETION_INDEX}}; {_env_lines(sc['launcher'])}; "
                      f"cd {HERE}; torchrun {' '.join(opts)}{' ' if opts else ''}{WORKER}")
            out.append([*env, "bash", "-c", script])
        else:
            env += ["PET_RDZV_BACKEND=c10d", f"PET_RDZV_ENDPOINT=127.0.0.1:{port}", f"PET_RDZV_ID={sc['name']}",
                    f"PET_NODE_RANK={i}"]
            script = (f"echo \"starting node $PET_NODE_RANK of $PET_NNODES\"; {_env_lines(sc['launcher'])}; "
                      f"cd {HERE} && torchrun {' '.join(opts)}{' ' if opts else ''}{WORKER}")
            out.append([*env, "sh", "-c", script])
    return out


def public(part: str) -> str:
    """A command part as the user would type it (this machine's paths as a container's)."""
    part = part.replace(str(HERE), "/workspace")
    if part.startswith("PATH="):
        return "PATH=/opt/venv/bin:/usr/bin:/bin"
    return "PYTHONPATH=/workspace" if part.startswith("PYTHONPATH=") else part


__all__ = ["LAUNCHERS", "commands", "public", "scenarios"]
