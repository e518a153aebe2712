"""Real launcher recordings (tests/data/torch-runs) in the shapes users paste from their log
pipelines (tests/export_shapes.py: kubectl --prefix, stern, logcli, Grafana, CRI and Docker files,
Fluent Bit / Fluentd, CloudWatch Insights, Cloud Logging, Kibana), through ``k10s import-logs``
with no option, must read as the run's plain pod logs do; and each recogniser on a few lines of
its real format. The whole sweep (every run, every shape): tests/tools/score_export_shapes.py,
docs/import.md "Export shapes measured on the launcher recordings"."""

from __future__ import annotations

import json

import pytest

import export_shapes
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_exports import read_export, split_export
from k10s_forensics.parsers.log_pod_prefix import split_source
from bundle_batch import Batched
from torch_runs_kit import CAPTURED, load_runs, score_findings


def split_source_of(text: str):
    return split_source("kubectl.log", text, "imported")


RUNS = {r.id: r for r in load_runs()}
#: one pod, several pods, three nodes, restarts, a control, mp.spawn
SAMPLE = ["2.13.0/t5-hf-computeloss-keyerror-rank1", "2.13.0/t4-accel-2node-hang-node1", "2.13.0/torchrun-3x2-exception-filter1",
          "2.14.1/t5-restarts2-moving-culprit", "2.13.0/t3-common-mode-valueerror", "2.13.0/spawn-exception"]


def _keys() -> list[tuple[str, str]]:
    # each shape on three of the sample runs, in turn (every run in every third shape): ~60 imports
    return [(shape, SAMPLE[(i + 2 * j) % len(SAMPLE)]) for i, shape in enumerate(export_shapes.SHAPES) for j in range(3)]


#: read bundle_batch.PER_ANALYSIS per analysis (tests/bundle_batch.py)
BATCHED = Batched("export-shapes", _keys())


def _import(key: tuple[str, str], folder) -> object:
    shape, run_id = key
    files = export_shapes.shapes(RUNS[run_id].stamped())[shape]
    sources = [LogSource(rel.rsplit("/", 1)[-1], text) for rel, text in files]
    return import_logs(sources, folder, now=CAPTURED, derive=False)[0]


@pytest.mark.slow
@pytest.mark.parametrize("shape,run_id", [pytest.param(*k, id=f"{k[0]}-{k[1]}", marks=BATCHED.mark(k)) for k in _keys()])
def test_a_recorded_run_reads_the_same_in_each_export_shape(tmp_path_factory, shape, run_id):
    why = score_findings(RUNS[run_id], BATCHED.findings((shape, run_id), tmp_path_factory, _import))
    assert why is None, why


def test_the_generator_is_deterministic():
    run = RUNS["2.13.0/t3-record-exception"]
    assert export_shapes.shapes(run.stamped()) == export_shapes.shapes(run.stamped())
    assert set(export_shapes.shapes(run.stamped())) == set(export_shapes.SHAPES)


def _read(text: str):
    found = read_export(text)
    assert found is not None, text[:200]
    return found[0], [r for r in found[1] if not isinstance(r, str)]


def test_grafana_download_as_text_of_grafana_11():
    """``downloadLogsModelAsTxt`` since Grafana 10: meta lines, two blank lines, ``YYYY-MM-DD HH:mm:ss.SSS<TAB><line>``
    (newest first); the older ``<epoch ms><TAB><ISO><TAB><line>`` rows are still read."""
    text = ('Common labels: {"container":"pytorch","namespace":"team-a"}\nLine limit: "1000 (3 returned)"\n\n\n'
            "2026-11-29 08:26:31.002\t[rank1]: KeyError: 'labels'\n2026-11-29 08:26:30.500\t[rank1]: Traceback (most recent call last):\n"
            "2026-11-29 08:26:29.498\t[default0]:rank 0/4 initialised\n")
    what, recs = _read(text)
    assert what == "Grafana logs download (text)"
    assert [r.text for r in recs][0] == "[rank1]: KeyError: 'labels'" and recs[-1].ts_ns % 10**9 == 498_000_000
    assert read_export("2026-11-29 08:26:29.498 INFO step 1\n2026-11-29 08:26:30.498 INFO step 2\n") is None  # a space, not a tab


def test_fluentd_stdout_and_file_output():
    """Fluentd's out_stdout ``<time> <tag>: <record>`` and out_file ``<time><TAB><tag><TAB><record>``: the record's pod, else the
    tag's (``kubernetes.var.log.containers.<pod>_<ns>_<container>-<id>.log``); the time is the event's."""
    tag = "kubernetes.var.log.containers.train-worker-0_team-a_pytorch-" + "a" * 64 + ".log"
    stdout = (f'2026-11-29 08:26:29.498161000 +0000 {tag}: {{"log":"[rank2]: KeyError: 1\\n","stream":"stderr"}}\n'
              f'2026-11-29 08:26:30.000000000 +0000 {tag}: {{"log":"bye\\n","stream":"stderr","kubernetes":{{"pod_name":"train-master-0",'
              f'"container_name":"pytorch","namespace_name":"team-a"}}}}\n')
    what, recs = _read(stdout)
    assert what == "Fluentd output"
    assert [(r.pod, r.container, r.text) for r in recs] == [("train-worker-0", "pytorch", "[rank2]: KeyError: 1"), ("train-master-0", "pytorch", "bye")]
    assert recs[0].ts_ns % 10**9 == 498_161_000
    out_file = f'2026-11-29T08:26:29+00:00\t{tag}\t{{"log":"step 1\\n","stream":"stdout"}}\n' * 2
    assert [(r.pod, r.text) for r in _read(out_file)[1]] == [("train-worker-0", "step 1")] * 2


def test_cri_log_file_parts_are_joined_and_files_are_nodes():
    """The runtime's own file (``/var/log/pods/<ns>_<pod>_<uid>/<container>/0.log``): ``P`` parts joined up to their ``F``;
    one file per container names no pod, so several files are one node each, in the order given."""
    node0 = ("2026-11-29T08:26:29.498161000Z stdout F step 1\n2026-11-29T08:26:30.100000000Z stderr P [rank0]: " + "x" * 10
             + "\n2026-11-29T08:26:30.100000001Z stderr P " + "y" * 10 + "\n2026-11-29T08:26:30.100000002Z stderr F end\n")
    what, recs = _read(node0)
    assert what == "CRI log file" and [r.text for r in recs] == ["step 1", "[rank0]: " + "x" * 10 + "y" * 10 + "end"]
    node1 = "2026-11-29T08:26:29.600000000Z stdout F [rank1]: step 1\n2026-11-29T08:26:31.000000000Z stderr F [rank1]: bye\n"
    logs, _, how = split_export([("0.log", node0), ("0.log", node1)], "imported")
    assert len(logs) == 2 and "one node per file" in how
    assert logs[1][1].split("\n") == ["2026-11-29T08:26:29.600000000Z [rank1]: step 1", "2026-11-29T08:26:31.000000000Z [rank1]: bye"]


def test_docker_json_file_parts_are_joined():
    """Docker's json-file driver writes a line over 16 KiB as several records, all but the last without their ``\\n``."""
    rows = ['{"log":"[rank0]: aaa","stream":"stderr","time":"2026-11-29T08:26:30.1Z"}',
            '{"log":"bbb\\n","stream":"stderr","time":"2026-11-29T08:26:30.1Z"}',
            '{"log":"step 2\\n","stream":"stdout","time":"2026-11-29T08:26:31Z"}']
    _, recs = _read("\n".join(rows) + "\n")
    assert [r.text for r in recs] == ["[rank0]: aaabbb", "step 2"]


def test_stern_all_namespaces_piped_to_a_file():
    """``stern -A … > file``: the ``+`` lines went to stderr, so nothing says the first word is a namespace; pods named as the
    training operators name theirs after one namespace word are stern's; a log of three repeating words is not."""
    lines = [f"team-a train-{'master' if i % 2 == 0 else 'worker'}-0 pytorch step {i}" for i in range(6)]
    what, recs = _read("\n".join(lines) + "\n")
    assert what == "stern output" and {r.pod for r in recs} == {"train-master-0", "train-worker-0"} and recs[0].text == "step 0"
    assert read_export("".join(f"info data loader step {i}\n" for i in range(6))) is None


def test_kibana_csv_formula_escape_is_undone():
    """Kibana's CSV report puts ``'`` before a cell starting with ``=``, ``+``, ``-`` or ``@`` (escapeFormulaValues, on by
    default): torchrun's failure table rule ``=====`` comes back as the launcher wrote it."""
    text = ('"@timestamp","kubernetes.pod.name","kubernetes.container.name","message"\n'
            '"Nov 29, 2026 @ 08:26:31.002","train-worker-0","pytorch","\'============================================================"\n'
            '"Nov 29, 2026 @ 08:26:31.001","train-worker-0","pytorch","\'it\'s a plain quote"\n')
    _, recs = _read(text)
    assert [r.text for r in recs] == ["============================================================", "'it's a plain quote"]


def test_kubectl_prefix_of_one_pod_is_taken_off():
    """``kubectl logs train-master-0 --prefix`` (a one-node job): one pod is not split, but its prefix is taken off, or it hides
    every line's own start (a rank's traceback, torchrun's failure table)."""
    lines = ["[default1]:step 1", "[rank1]: Traceback (most recent call last):", "[rank1]: KeyError: 'labels'"]
    logs, job, how = split_source_of("".join(f"[pod/train-master-0/pytorch] 2026-11-29T08:26:2{i}.000000000Z {ln}\n" for i, ln in enumerate(lines)))
    assert job == "train" and how == "kubectl logs --prefix (1 pod: train-master-0)"
    assert logs[0][1].split("\n")[:3] == [f"2026-11-29T08:26:2{i}.000000000Z {ln}" for i, ln in enumerate(lines)]


def test_journalctl_short_iso_and_short_unix_lines_are_a_node_journal():
    """``journalctl -o short-iso`` (``+0000`` before systemd 249, ``+00:00`` since), ``short-iso-precise`` and ``short-unix``:
    the time and the line, the host and ``ident[pid]:`` taken off, journalctl's own ``-- Boot … --`` line dropped."""
    text = ("-- Boot 0f4b6a3d2c1e4f5a8b9c0d1e2f3a4b5c --\n"
            "2026-11-29T08:26:29+0000 gpu-node-1 torchrun[4101]: [default0]:[rank2]: Traceback (most recent call last):\n"
            "2026-11-29T08:26:29.498161+00:00 gpu-node-1 torchrun[4101]: [default0]:[rank2]: KeyError: 'labels'\n"
            "1764404790.250000 gpu-node-1 python3: bye\n")
    what, recs = _read(text)
    assert what == "journalctl output" and [r.text for r in recs] == [
        "[default0]:[rank2]: Traceback (most recent call last):", "[default0]:[rank2]: KeyError: 'labels'", "bye"]
    assert recs[1].ts_ns % 10**9 == 498_161_000 and recs[2].ts_ns == 1764404790_250_000_000 and recs[0].pod is None
    assert read_export("2026-11-29T08:26:29+00:00 step 1 loss 0.5\n" * 3) is None  # a time, then no host and identifier


def test_journalctl_default_short_lines_take_the_import_year():
    """``journalctl`` with no ``-o`` (``short``, ``short-precise``): ``Nov 29 08:26:29 <host> <ident>[<pid>]: <line>``, no
    year: placed in the year of the import (the year before where that would be in the future, as syslog's are)."""
    import datetime as dt

    text = ("Nov 29 08:26:29 gpu-node-1 torchrun[4101]: [rank2]: Traceback (most recent call last):\n"
            "Nov 29 08:26:29.498161 gpu-node-1 torchrun[4101]: [rank2]: KeyError: 'labels'\n")
    what, recs = read_export(text, "node.txt", dt.datetime(2027, 1, 2, tzinfo=dt.timezone.utc))
    assert what == "journalctl output" and [r.text for r in recs] == ["[rank2]: Traceback (most recent call last):", "[rank2]: KeyError: 'labels'"]
    assert recs[1].ts_ns == int(dt.datetime(2026, 11, 29, 8, 26, 29, tzinfo=dt.timezone.utc).timestamp()) * 10**9 + 498_161_000


def test_journalctl_json_records_and_messages_kept_as_bytes():
    """``journalctl -o json``: ``MESSAGE`` at ``__REALTIME_TIMESTAMP`` (µs); a message holding control characters (colour
    codes) is an array of its bytes."""
    colour = list("\x1b[31m[rank1]: boom\x1b[0m".encode())
    rows = ['{ "__CURSOR" : "s=1;i=1", "__REALTIME_TIMESTAMP" : "1764404789498161", "_HOSTNAME" : "gpu-node-0", '
            '"SYSLOG_IDENTIFIER" : "torchrun", "_PID" : "4100", "MESSAGE" : "[rank1]: step 1" }',
            json.dumps({"__REALTIME_TIMESTAMP": "1764404790000000", "MESSAGE": colour, "_HOSTNAME": "gpu-node-0"})]
    what, recs = _read("\n".join(rows) + "\n")
    assert what == "journald export (JSON lines)"
    assert [(r.text, r.ts_ns) for r in recs] == [("[rank1]: step 1", 1764404789498161000), ("[rank1]: boom", 1764404790000000000)]


def test_a_notebook_is_read_as_the_output_its_cells_saved(tmp_path):
    """A Jupyter notebook that ran ``!torchrun …``: its stream outputs (text as a list of lines or one string) and an error
    output's traceback are the log; its JSON, its markdown and its code are not."""
    from k10s_forensics.parsers.log_notebook import notebook_text

    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["[rank9]: not a log line"]},
                    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["!torchrun train.py"],
                     "outputs": [{"name": "stdout", "output_type": "stream", "text": ["[rank1]: Traceback (most recent call last):\n",
                                                                                      "[rank1]: KeyError: 'x'\n"]},
                                 {"name": "stderr", "output_type": "stream", "text": "bye"},
                                 {"output_type": "error", "ename": "CalledProcessError", "evalue": "1", "traceback": ["\x1b[0;31mCalledProcessError\x1b[0m"]}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(nb, indent=1)
    assert notebook_text(text) == "[rank1]: Traceback (most recent call last):\n[rank1]: KeyError: 'x'\nbye\n\x1b[0;31mCalledProcessError\x1b[0m\n"
    assert notebook_text('{"cells": 3}') is None and notebook_text("[rank1]: step 1\n") is None
    _, layout = import_logs([LogSource("train.ipynb", text)], tmp_path / "b", now=CAPTURED)
    assert layout.world_size == 2  # the ranks the outputs name, not the markdown's
