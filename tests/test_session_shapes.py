"""Readers of what a user's own session kept (tests/session_shapes.py: a ``script`` typescript, ``tmux capture-pane``,
``kubectl logs -f`` stopped with ^C, a GitLab job log, a Datadog CSV export, LeaderWorkerSet pods), each on a few lines
of its format. The recordings in each shape run in tests/test_launcher_shapes.py (one run a shape); the whole sweep:
``tests/tools/score_export_shapes.py --family session``."""

from __future__ import annotations

from k10s_forensics.parsers.log_ci import ci_text
from k10s_forensics.parsers.log_exports import split_export
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_pod_prefix import split_source

ESC = "\x1b"


def test_a_gitlab_job_log_with_timestamps_is_the_jobs_lines():
    """``<time> <stream><O|E><space|+><text>``: the stream mark off, a ``+`` part joined to its line, section markers off
    (a marker's line with nothing after it dropped), the time kept to order the lines."""
    t = "2026-11-28T12:05:03.010223Z"
    text = "\n".join([f"{t} 00O {ESC}[0KRunning with gitlab-runner 17.5.0 (8ec04662){ESC}[0;m",
                      f"{t} 00O section_start:1795867503:step_script\r{ESC}[0K",
                      f"{t} 00O+{ESC}[0K{ESC}[36;1mExecuting \"step_script\" stage of the job script{ESC}[0;m",
                      f"{t} 01E [default1]:[rank3]: Traceback (most recent call last):",
                      f"{t} 01E [default1]:[rank3]: KeyError: 'lab",
                      f"{t} 01E+els'",
                      f"{t} 00O section_end:1795867504:step_script\r{ESC}[0K",
                      f"{t} 00O {ESC}[31;1mERROR: Job failed: exit code 1"])
    assert ci_text(text).split("\n") == [f"{t} {ESC}[0KRunning with gitlab-runner 17.5.0 (8ec04662){ESC}[0;m",
                                         f"{t} {ESC}[0K{ESC}[36;1mExecuting \"step_script\" stage of the job script{ESC}[0;m",
                                         f"{t} [default1]:[rank3]: Traceback (most recent call last):",
                                         f"{t} [default1]:[rank3]: KeyError: 'labels'",
                                         f"{t} {ESC}[31;1mERROR: Job failed: exit code 1"]
    assert ci_text(f"{t} [rank3]: KeyError: 'x'\n{t} step 01O 2\n") is None  # no runner's mark after the time
    assert ci_text("step 00O 1\nstep 2\n") is None


def test_a_datadog_csv_export_is_one_node_per_host():
    """Log Explorer's "Export to CSV" (``"Date","Host","Service","Content"``, newest first): no pod column, so each host
    (the node the agent ran on) is a node, in time order within it."""
    text = ('"Date","Host","Service","Content"\n'
            '"2026-11-28T12:05:04.595Z","gpu-node-0","pytorch","[rank0]: RuntimeError: Connection closed by peer"\n'
            '"2026-11-28T12:05:03.281Z","gpu-node-1","pytorch","[rank3]: KeyError: \'labels\'"\n'
            '"2026-11-28T12:05:03.010Z","gpu-node-1","pytorch","[rank3]: step 4"\n'
            '"2026-11-28T12:05:02.900Z","gpu-node-0","pytorch","[rank0]: step 4"\n')
    logs, _, how = split_export([("extract.csv", text)], "imported")
    assert how == "CSV export, 4 records (2 pods: gpu-node-0, gpu-node-1)"
    assert [body.split("\n") for _, body in logs] == [
        ["2026-11-28T12:05:02.900000000Z [rank0]: step 4", "2026-11-28T12:05:04.595000000Z [rank0]: RuntimeError: Connection closed by peer"],
        ["2026-11-28T12:05:03.010000000Z [rank3]: step 4", "2026-11-28T12:05:03.281000000Z [rank3]: KeyError: 'labels'"]]


def test_leaderworkerset_pods_put_the_leader_first():
    """``<lws>-<group>`` leads its group (worker index 0), ``<lws>-<group>-<i>`` follow by index, whatever the order of
    the lines; a pod of that shape with no workers named after it is no leader (name order)."""
    text = "".join(f"[pod/{pod}/{c}] {line}\n" for pod, c, line in [
        ("train-0-1", "worker", "[rank2]: step 1"), ("train-0", "leader", "[rank0]: step 1"), ("train-0-2", "worker", "[rank4]: boom")])
    logs, _, how = split_source("lws.log", text, "imported")
    assert how == "kubectl logs --prefix (3 pods: train-0, train-0-1, train-0-2)"
    assert [body for _, body in logs] == ["[rank0]: step 1", "[rank2]: step 1", "[rank4]: boom"]
    other = "".join(f"[pod/{pod}/c] step 1\n" for pod in ("web-1", "db-0"))
    assert split_source("x.log", other, "imported")[2] == "kubectl logs --prefix (2 pods: db-0, web-1)"


def test_a_pane_that_trims_its_rows_is_unwrapped():
    """``tmux capture-pane -p`` (no ``-J``): rows of the pane's width, trailing blanks trimmed, so lines a bit shorter
    than the width are many; nearly every full row followed by its tail is a terminal's cut all the same."""
    width = 60
    long = [f"[pod/train-worker-0/pytorch] [rank{r}]: RuntimeError: Connection closed by peer [127.0.0.1]:2{r}181" for r in range(5)]
    rows = [part for line in long for part in (line[:width], line[width:])]
    rows += [f"[pod/train-master-0/pytorch] step {i} loss 0.{i:03d} gn {i % 3}.{'5' * (i % 4)}" for i in range(12)]  # 53-58: near it
    repaired = repair_paste("\n".join(rows) + "\n")
    assert repaired.notes == [f"terminal wrapping at {width} columns (5 lines joined)"]
    assert repaired.text.split("\n")[:5] == long
    cut_once = "\n".join(rows[:2] + rows[10:]) + "\n"  # one full row: no evidence of a terminal
    assert repair_paste(cut_once).notes == []


def test_a_line_cut_by_an_interrupt_is_dropped():
    """``kubectl logs -f`` stopped with ^C: the tty echoes ``^C`` where the line was cut; the cut line is no line the
    program wrote (``Connection closed by pe^C`` no longer says it was a peer's teardown), nor is ``^C`` alone."""
    text = ("[pod/train-worker-0/pytorch] [rank1]: step 3\n"
            "[pod/train-worker-0/pytorch] [rank1]: RuntimeError: [pair.cc:553] Connection closed by pe^C\n"
            "^C\nalice@ws:~$ \n")
    repaired = repair_paste(text)
    assert repaired.notes == ["2 lines cut by ^C dropped"]
    assert repaired.text == "[pod/train-worker-0/pytorch] [rank1]: step 3\nalice@ws:~$ \n"
    assert repair_paste("[rank1]: press ^C to stop (^C twice to quit)\n").notes == []
