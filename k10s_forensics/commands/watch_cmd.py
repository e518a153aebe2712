"""``k10s watch``: capture at the moment of the incident (docs/watch.md)."""

from __future__ import annotations

import json
import signal
import sys
import urllib.error
import urllib.request
from pathlib import Path

import click

from k10s_forensics.errors import InputError


def _connection(kubeconfig: str | None, context: str | None, in_cluster: bool):
    from k10s_forensics.capture.connection import ClusterConnection, load_connection

    if not in_cluster:
        return load_connection(kubeconfig, context)
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except ConfigException as exc:
        raise InputError(f"--in-cluster: {exc}") from None
    ns_file = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
    namespace = ns_file.read_text().strip() if ns_file.exists() else "default"
    return ClusterConnection(configuration, "in-cluster", configuration.host, namespace, in_cluster=True)


@click.group("watch", invoke_without_command=True, subcommand_metavar="[COMMAND] [ARGS]...")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Kubeconfig file (else $KUBECONFIG, ~/.kube/config).")
@click.option("--in-cluster", is_flag=True, help="Use the pod's service account (a Deployment).")
@click.option("--context", help="Kubeconfig context to use.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="YAML file with the same keys as the flags (flags win).")
@click.option("--out", metavar="DIR", help="Where incidents are written [config out, default /var/lib/k10s/bundles].")
@click.option("--listen", metavar="HOST:PORT", help="HTTP endpoint: /healthz, /metrics, /alertmanager, /trigger, / [0.0.0.0:8080].")
@click.option("-n", "--namespace", "namespaces", multiple=True, help="Namespace to watch (repeatable; none: all).")
@click.option("-l", "--selector", help="Label selector of the pods and jobs to watch.")
@click.option("--prometheus", metavar="URL", help="Prometheus for the history window ending at the incident.")
@click.option("--notify-url", metavar="URL", help="Webhook (Slack-compatible JSON) told about each incident.")
@click.option("--events", is_flag=True, default=None, help="Create a Kubernetes Event on the job (needs create events; the only write).")
@click.option("--once", is_flag=True, help="Exit after the first incident is captured and analysed.")
@click.pass_context
def watch_cmd(ctx: click.Context, kubeconfig, in_cluster, context, config_file, out, listen, namespaces, selector,
              prometheus, notify_url, events, once) -> None:
    """Watch training jobs and capture a bundle the moment one fails, hangs or is evicted.

    \b
    k10s watch --kubeconfig ~/.kube/config -n team-a --out ./incidents --listen 127.0.0.1:8080
    k10s watch list --out ./incidents
    k10s watch trigger team-a/llama-ft --url http://127.0.0.1:8080
    """
    if ctx.invoked_subcommand is not None:
        return
    from k10s_forensics.rebuild.memory import give_back_freed_memory
    from k10s_forensics.watch.config import load
    from k10s_forensics.watch.watcher import Watcher

    if in_cluster and kubeconfig:
        raise click.UsageError("--in-cluster and --kubeconfig exclude each other")
    cfg = load(config_file, {"out": out, "listen": listen, "namespaces": namespaces, "selector": selector,
                             "prometheus": prometheus, "notify_url": notify_url, "events": events})
    connection = _connection(kubeconfig, context, in_cluster)
    give_back_freed_memory()  # runs for days: each capture's and analysis's memory goes back to the OS
    try:
        watcher = Watcher(cfg, connection).start()
    except OSError as exc:
        raise InputError(f"cannot start: {exc.strerror or exc}") from None
    click.echo(f"k10s watch: {connection.context} ({connection.server}) -> {cfg.out}; http on {watcher.url}", err=True)
    stop = {"signal": False}

    def on_signal(signum, frame):
        stop["signal"] = True
        watcher.stop_event.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    while not watcher.stop_event.is_set():
        if once and watcher.first_done.wait(0.5):
            break
        watcher.stop_event.wait(0.5)
    watcher.stop(wait_s=0.0 if once else 30.0)


@watch_cmd.command("list")
@click.option("--out", metavar="DIR", default="/var/lib/k10s/bundles", show_default=True, help="The watcher's output folder.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def list_cmd(out: str, fmt: str) -> None:
    """What was captured, why (the trigger) and what analyze found, newest first."""
    from k10s_forensics.watch import page, store

    if not Path(out).is_dir():
        raise InputError(f"{out}: no such folder")
    rows = store.listing(Path(out))
    click.echo(page.render_json(rows) if fmt == "json" else page.render_text(rows), nl=False)


@watch_cmd.command("trigger")
@click.argument("job", metavar="NS/JOB")
@click.option("--url", default="http://127.0.0.1:8080", show_default=True, help="The running watcher's HTTP endpoint.")
def trigger_cmd(job: str, url: str) -> None:
    """Ask a running watcher to capture NS/JOB now (POST /trigger)."""
    body = json.dumps({"job": job}).encode()
    req = urllib.request.Request(url.rstrip("/") + "/trigger", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 (a URL the user gave)
            answer = json.loads(resp.read(1 << 16) or b"{}")
    except urllib.error.HTTPError as exc:
        detail = exc.read(1 << 12).decode("utf-8", "replace").strip()
        raise InputError(f"{url}: HTTP {exc.code} {detail}") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{url}: {exc}") from None
    click.echo(f"{answer.get('job', job)}: {answer.get('outcome', '?')}")
    sys.stdout.flush()


COMMANDS = (watch_cmd,)
