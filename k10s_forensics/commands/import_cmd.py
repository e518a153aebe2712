"""``k10s import-logs``: log files (a Slurm job's output, saved ``kubectl logs``, a paste) as a bundle."""

from __future__ import annotations

import click


@click.command("import-logs")
@click.argument("logs", nargs=-1, required=True, metavar="LOG...")
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Bundle directory to create.")
@click.option("--nproc-per-node", type=click.IntRange(1, 4096), default=None,
              help="Processes (ranks) per node; default: what the logs say (--nproc_per_node, local_world_size, ...).")
@click.option("--world-size", type=click.IntRange(1, 1 << 20), default=None, help="Ranks in all; default: what the logs say.")
@click.option("--nodes", type=click.IntRange(1, 65536), default=None, help="Nodes; default: one per LOG, or from the world size.")
@click.option("--job", default="imported", show_default=True,
              help="Name the imported job is given (a `kubectl logs --prefix` log of a Kubeflow job: its pods' own job name).")
@click.option("--namespace", default="imported", show_default=True)
@click.option("--split/--no-split", default=True, show_default=True,
              help="Split one LOG into pods by the rank each line names (--no-split: keep it whole in the first pod).")
@click.option("--run-id", default=None, metavar="ID",
              help="A --log-dir tree of several runs (a reused log dir): read only this run's agents, the <run_id> of "
                   "their <run_id>_<random> folders (torchrun's --rdzv-id; default: the run the consoles name).")
def import_logs_cmd(logs: tuple[str, ...], out_dir: str, nproc_per_node: int | None, world_size: int | None, nodes: int | None,
                    job: str, namespace: str, split: bool, run_id: str | None) -> None:
    """Turn training console logs into a bundle that analyze, report and view read.

    \b
    One LOG holding many ranks' lines (a torchrun console, mpirun/srun output, a paste) is
    split into one pod per node by the rank each line's prefix names; several LOGs are one
    node each, in the order given (node rank 0 first), or, when every file is named after its
    Kubeflow pod (train-worker-3.log), at the node its pod's name gives. `-` reads standard input.
    A whole job saved with `kubectl logs --prefix`, or exported from a log store (Loki,
    Cloud Logging, CloudWatch, Elasticsearch/Kibana, stern), is split back into one pod each,
    placed by the training operator's pod names (docs/import.md).
    kubelet's own files (/var/log/pods/*/*/*, /var/log/containers/*) are the pods their paths name.
    A tar or zip archive is read as the files in it. srun --label, mpirun --tag-output and
    pdsh tags that name a node (a torchrun per node) split the log by node; several torchrun
    agents in one log are one node each; files one per process (Azure ML's
    std_log_process_N.txt, mpirun's rank.N/stderr) are one log, by rank.
    A folder is torchrun's --log-dir tree (<run>_<id>/attempt_N/<local_rank>/stdout.log, one
    <run>_<id> per node; as given, or in a tar/zip): each worker's lines join its node's console
    (the node from the console's paths or the ranks the workers print), each attempt apart.
    A tree of several runs (a reused --log-dir, a parent folder) is read for the run the consoles
    name (a folder path, a run_id line) or --run-id's; with neither it is refused, the runs listed.
    What pasting did is undone (CRLF, ANSI codes, markdown, double spacing, terminal
    wrapping); nothing else is changed, and no clock is invented for lines without one.
    """
    from k10s_forensics.logimport import import_logs, read_sources

    sources = [s for path in logs for s in read_sources(path)]
    bundle, layout = import_logs(sources, out_dir, nproc_per_node=nproc_per_node, world_size=world_size, nodes=nodes,
                                 job=job, namespace=namespace, split=split, run_id=run_id)
    how = ", ".join(f"{k} from {v}" for k, v in layout.hints.items() if k != "placement")
    named = ", ".join(map(str, (layout.placed or [])[:8])) + (f", … ({len(layout.placed)} in all)" if len(layout.placed or []) > 8 else "")
    on_hosts = len(layout.hosts)
    where = ("node unknown" if not on_hosts else "on the node its own line names" if on_hosts == len(layout.placed or [])
             else f"{on_hosts} on the node its own line names, the rest node unknown")
    shape = (f"rank(s) {named} named (a pod each, {where})" if layout.placed
             else f"{layout.nodes} node(s) x {layout.nproc_per_node} process(es)")
    click.echo(f"wrote {bundle.path}: job {layout.namespace or namespace}/{layout.job or job}, {shape}, "
               f"world size {layout.world_size} ({how})")
    if layout.placed:
        click.echo(layout.hints["placement"])
    if layout.rank_unknown:
        click.echo("no line numbers a rank, a process or a worker: a failure is reported without a rank "
                   "(pass --nproc-per-node 1 if the job ran one process)")
    for name, notes in layout.repairs.items():
        click.echo(f"{name}: undid {', '.join(notes)}")
    click.echo(f"next: k10s analyze {bundle.path}")


COMMANDS = (import_logs_cmd,)
