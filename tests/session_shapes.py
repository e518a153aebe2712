"""What a user's own session kept of a run, made from one recorded run (tests/data/torch-runs): the fourth family
beside ``export_shapes`` (log pipelines), ``launcher_shapes`` (launchers, platforms) and ``job_shapes`` (schedulers,
workflows, journals, notebooks). ``shapes(node_texts, nproc)`` gives, per shape, the files a user would hand to
``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Formats (each from the tool's docs, source or
real output; searched, not copied):

* a terminal recorded with util-linux ``script`` (typescript): ``Script started on <YYYY-MM-DD HH:MM:SS+00:00>
  [TERM="…" TTY="/dev/pts/N" COLUMNS="…" LINES="…"]``, then the pty's raw bytes: every line ended ``\\r\\n``, the
  shell's prompt with its window-title (``ESC ] 0 ; … BEL``) and colour codes and bracketed-paste switches
  (``ESC [?2004h`` / ``ESC [?2004l``), a typing slip erased with backspaces (``\\b`` then ``ESC [K``), then
  ``kubectl logs -f -l … --prefix`` until ``^C``, and ``Script done on … [COMMAND_EXIT_CODE="130"]``;
* ``tmux capture-pane -p -S -`` of a pane 120 columns wide that followed the same ``kubectl logs -f --prefix``:
  without ``-J`` a line longer than the pane comes back as rows of 120 characters, trailing blanks trimmed, the
  pane's empty rows under the last prompt kept as empty lines; without ``-e``, no escape sequences (the cut falls at
  display columns);
* ``kubectl logs -f -l … --prefix --timestamps`` copied from the terminal after ``^C``: the command line with
  its prompt, the pods' lines as they came, the last line cut where the interrupt fell with the tty's ``^C``
  echoed after it, then a new prompt;
* a GitLab CI job's raw log download with ``FF_TIMESTAMPS`` (GitLab 17.1+, runner 17.0+): every line
  ``<RFC 3339, 6 digits>Z <2 hex stream><O|E><space, or + for a continued line><text>``; the runner's own lines
  on stream ``00``, the script's on ``01``; ``section_start:<epoch s>:<name>\\r ESC[0K`` /
  ``section_end:…`` markers; the script echoed as ``ESC[32;1m$ <command>ESC[0;m``; ``ERROR: Job failed: exit code
  1`` in red at the end; the two agents of the step on one runner (as the GitHub Actions shape);
* Datadog Log Explorer "Export to CSV" with its default columns ``"Date","Host","Service","Content"`` (every value
  quoted, ``Date`` ISO 8601 with milliseconds, newest first as the explorer lists them; ``Host`` the node the pod
  ran on, ``Service`` the container's);
* LeaderWorkerSet pods (``leaderworkerset.sigs.k8s.io``): a group's leader is ``<lws>-<group>``, its workers
  ``<lws>-<group>-<worker index>`` (1…size-1; the worker index is the node), containers ``leader`` and
  ``worker``, saved with ``kubectl logs -l leaderworkerset.sigs.k8s.io/name=<lws> --prefix --timestamps``
  (not following: pod after pod, in name order).
"""

from __future__ import annotations

import csv
import io
import re

from export_shapes import _dt, _ns, entries
from launcher_shapes import _cmd, _join

JOB, NS, CONTAINER = "train", "team-a", "pytorch"
_ESC = "\x1b"
_PROMPT = f"{_ESC}]0;alice@ws: ~\x07{_ESC}[?2004h{_ESC}[01;32malice@ws{_ESC}[00m:{_ESC}[01;34m~{_ESC}[00m$ "
_FOLLOW = f"kubectl logs -f -n {NS} -l training.kubeflow.org/job-name={JOB} --prefix --max-log-requests 16"
PANE_COLUMNS = 120
_SGR = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _pod(node: int) -> str:
    return f"{JOB}-master-0" if node == 0 else f"{JOB}-worker-{node - 1}"


def _prefixed(es, stamped: bool = False) -> list[str]:
    return [f"[pod/{_pod(n)}/{CONTAINER}] " + (f"{t} " if stamped else "") + line for t, n, line in es]


def _script_time(t: str) -> str:
    return _dt(t).strftime("%Y-%m-%d %H:%M:%S+00:00")


def script_typescript(es) -> str:
    first, last = (es[0][0], es[-1][0]) if es else ("2026-11-28T12:00:00.000000Z",) * 2
    head_cmd, tail_cmd = _FOLLOW.split(f"={JOB} ")
    slip = f"{head_cmd}=tria" + f"\b{_ESC}[K" * 2 + f"ain {tail_cmd}"  # "tria", two backspaces, "ain": train
    out = _prefixed(es) or [""]
    out[0] = f"{_ESC}[?2004l\r" + out[0]  # bash leaves bracketed-paste mode when the line is entered
    rows = [f"{_PROMPT}{slip}"] + out + ["^C", f"{_PROMPT}exit", f"{_ESC}[?2004l\rexit"]
    head = f'Script started on {_script_time(first)} [TERM="xterm-256color" TTY="/dev/pts/3" COLUMNS="{PANE_COLUMNS}" LINES="40"]\n'
    return head + "".join(r + "\r\n" for r in rows) + f'\nScript done on {_script_time(last)} [COMMAND_EXIT_CODE="130"]\n'


def _wrap(line: str, width: int) -> list[str]:
    rows = [line[i:i + width] for i in range(0, len(line), width)] or [""]
    return [r.rstrip(" ") for r in rows]


def tmux_capture(es) -> str:
    """Without ``-e`` the pane's text comes back without its escape sequences, cut at display columns."""
    lines = [f"alice@ws:~$ {_FOLLOW}"] + [_SGR.sub("", line) for line in _prefixed(es)] + ["^C", "alice@ws:~$"]
    rows = [r for line in lines for r in _wrap(line, PANE_COLUMNS)]
    return _join(rows + [""] * 6)


def kubectl_interrupted(es) -> str:
    rows = _prefixed(es, stamped=True)
    if rows:
        cut = rows[-1]
        rows[-1] = cut[:max(len(cut) // 2, 1)] + "^C"
    return _join([f"alice@ws:~$ {_FOLLOW} --timestamps"] + rows + ["alice@ws:~$ "])


def _gl(t: str) -> str:
    return _dt(t).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_ns(t) % 1_000_000_000 // 1000:06d}Z"


def gitlab_job_log(es, cmd: str) -> str:
    first, last = (es[0][0], es[-1][0]) if es else ("2026-11-28T12:00:00.000000Z",) * 2
    s0, s1 = int(_dt(first).timestamp()), int(_dt(last).timestamp())
    e = _ESC
    rows = [f"{_gl(first)} 00O {e}[0KRunning with gitlab-runner 17.5.0 (8ec04662){e}[0;m",
            f"{_gl(first)} 00O {e}[0K  on gpu-runner-1 t3_zk8Q, system ID: s_0e9a1c2b4d6f{e}[0;m",
            f"{_gl(first)} 00O section_start:{s0}:prepare_executor\r{e}[0K",
            f"{_gl(first)} 00O+{e}[0K{e}[36;1mPreparing the \"shell\" executor{e}[0;m{e}[0;m",
            f"{_gl(first)} 00O {e}[0KUsing Shell (bash) executor...{e}[0;m",
            f"{_gl(first)} 00O section_end:{s0}:prepare_executor\r{e}[0K",
            f"{_gl(first)} 00O section_start:{s0}:step_script\r{e}[0K",
            f"{_gl(first)} 00O+{e}[0K{e}[36;1mExecuting \"step_script\" stage of the job script{e}[0;m{e}[0;m",
            f"{_gl(first)} 00O {e}[32;1m$ {cmd}{e}[0;m"]
    rows += [f"{_gl(t)} 01E {line}" for t, _, line in es]
    rows += [f"{_gl(last)} 00O section_end:{s1}:step_script\r{e}[0K",
             f"{_gl(last)} 00O section_start:{s1}:cleanup_file_variables\r{e}[0K",
             f"{_gl(last)} 00O+{e}[0K{e}[36;1mCleaning up project directory and file based variables{e}[0;m{e}[0;m",
             f"{_gl(last)} 00O section_end:{s1}:cleanup_file_variables\r{e}[0K",
             f"{_gl(last)} 00O {e}[31;1mERROR: Job failed: exit code 1",
             f"{_gl(last)} 00O+{e}[0;m"]
    return _join(rows)


def datadog_csv(es) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    w.writerow(["Date", "Host", "Service", "Content"])
    w.writerows([[_dt(t).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_dt(t).microsecond // 1000:03d}Z", f"gpu-node-{n}", CONTAINER, line]
                 for t, n, line in reversed(es)])
    return buf.getvalue()


def lws_pod(node: int) -> tuple[str, str]:
    return (f"{JOB}-0", "leader") if node == 0 else (f"{JOB}-0-{node}", "worker")


def lws_prefix(es, nodes: int) -> str:
    order = sorted(range(nodes), key=lambda n: lws_pod(n)[0])
    return _join(f"[pod/{lws_pod(node)[0]}/{lws_pod(node)[1]}] {t} {line}" for node in order for t, n, line in es if n == node)


SHAPES = ("script-typescript", "tmux-capture-pane", "kubectl-follow-interrupted", "gitlab-job-log", "datadog-csv", "lws-prefix")


def shapes(node_texts: list[str], nproc: int) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first) of a run of ``nproc`` processes per node."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "script-typescript": [("typescript", script_typescript(es))], "tmux-capture-pane": [("pane.txt", tmux_capture(es))],
        "kubectl-follow-interrupted": [("kubectl-follow.txt", kubectl_interrupted(es))],
        "gitlab-job-log": [("job.log", gitlab_job_log(es, _cmd(nodes, nproc)))], "datadog-csv": [("extract-2026-11-28T12_10_00.csv", datadog_csv(es))],
        "lws-prefix": [("lws.log", lws_prefix(es, nodes))],
    }


__all__ = ["SHAPES", "lws_pod", "shapes"]
