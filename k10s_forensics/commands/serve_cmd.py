"""``k10s serve``: a read-only Kubernetes API over a bundle, for kubectl, k9s and tests."""

from __future__ import annotations

import signal
import sys
import tempfile
from pathlib import Path

import click

from k10s_forensics.store.bundle import iso, parse_iso
from k10s_forensics.serve.app import ServeServer
from k10s_forensics.serve.faults import Faults
from k10s_forensics.serve.kubeconfig import kubeconfig_text
from k10s_forensics.serve.store import ROUND_GAP_S, Store


@click.command("serve")
@click.argument("bundle_path", metavar="BUNDLE")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port on 127.0.0.1 (0: any free port).")
@click.option("--at", "at_text", metavar="TIME", help="Serve the listings as of this RFC 3339 time (default: the last listing).")
@click.option("--kubeconfig", "kubeconfig_path", type=click.Path(dir_okay=False), help="Write the kubeconfig here.")
@click.option("--print-kubeconfig", is_flag=True, help="Print the kubeconfig on stdout instead of the banner.")
@click.option("--server-version", metavar="VERSION", help="Version /version reports (default: the bundle's cluster version).")
@click.option("--round-gap", type=click.FloatRange(0.0), default=ROUND_GAP_S, show_default=True,
              help="Seconds between rows of one kind that still belong to the same listing round.")
@click.option("--access-log", is_flag=True, help="Log every request on stderr.")
@click.option("--latency-ms", type=click.FloatRange(0.0), default=0.0, show_default=True, help="Fault: delay every request.")
@click.option("--error-rate-429", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True, help="Fault: fraction answered 429 (Retry-After: 1).")
@click.option("--error-rate-500", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True, help="Fault: fraction answered 500.")
@click.option("--timeout-rate", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True, help="Fault: fraction that hang, then drop the connection.")
@click.option("--timeout-hang-s", type=click.FloatRange(0.0), default=5.0, show_default=True, help="Fault: how long a timed-out request hangs.")
@click.option("--forbid", multiple=True, metavar="RESOURCE[,..]", help="Fault: 403 for these resources (pods, pods/exec, nodes, pytorchjobs.kubeflow.org, ...).")
@click.option("--fail-exec", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True, help="Fault: fraction of execs that fail to start.")
@click.option("--vanish-pods", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True, help="Fault: fraction of pods that disappear mid-capture.")
@click.option("--vanish-after", type=click.IntRange(0), default=100, show_default=True, help="Fault: requests served before those pods vanish.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the fault draws.")
@click.option("--play", is_flag=True, help="Play the bundle's incident as it unfolds (pods Running, one rank fails, hang, restart), watch streams included.")
@click.option("--play-times", default="fail=5,hang=7,restart=60", show_default=True, metavar="PHASE=S,..",
              help="Seconds after the start at which each played phase begins.")
def serve_cmd(bundle_path: str, port: int, at_text: str | None, kubeconfig_path: str | None, print_kubeconfig: bool,
              server_version: str | None, round_gap: float, access_log: bool, latency_ms: float, error_rate_429: float,
              error_rate_500: float, timeout_rate: float, timeout_hang_s: float, forbid: tuple[str, ...], fail_exec: float,
              vanish_pods: float, vanish_after: int, seed: int, play: bool, play_times: str) -> None:
    """Serve BUNDLE as a read-only Kubernetes API on 127.0.0.1 (kubectl get/describe/logs/exec work).

    \b
    k10s serve incident/ --kubeconfig /tmp/k10s.kubeconfig &
    KUBECONFIG=/tmp/k10s.kubeconfig kubectl get pods -A -o wide
    """
    at = None
    if at_text:
        at = parse_iso(at_text)
        if at is None:
            raise click.BadParameter(f"{at_text!r} is not an RFC 3339 time (e.g. 2026-11-21T10:12:00Z)", param_hint="--at")
    forbidden = tuple(part for item in forbid for part in item.split(","))
    if error_rate_429 + error_rate_500 + timeout_rate > 1.0:
        raise click.BadParameter("--error-rate-429 + --error-rate-500 + --timeout-rate must not exceed 1")
    faults = Faults(latency_ms=latency_ms, error_rate_429=error_rate_429, error_rate_500=error_rate_500,
                    timeout_rate=timeout_rate, timeout_hang_s=timeout_hang_s, forbid=forbidden, fail_exec=fail_exec,
                    vanish_pods=vanish_pods, vanish_after=vanish_after, seed=seed)
    store = Store.load(bundle_path, at=at, round_gap_s=round_gap)
    try:
        server = ServeServer(store, faults, port=port, access_log=sys.stderr if access_log else None,
                             server_version=server_version)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    if play:
        _start_play(server, play_times)
    if print_kubeconfig:
        click.echo(kubeconfig_text(server.url, name=f"k10s-{store.bundle.path.name}"), nl=False)
    path = Path(kubeconfig_path) if kubeconfig_path else Path(tempfile.gettempdir()) / f"k10s-serve-{server.port}.kubeconfig"
    if kubeconfig_path or not print_kubeconfig:
        server.write_kubeconfig(path)
    if not print_kubeconfig:
        click.echo(f"serving {store.bundle.path} on {server.url} (read-only, as of {iso(store.ref_time)})")
        click.echo(f"kubeconfig: {path}")
        click.echo(f"  export KUBECONFIG={path}")
        if faults.active:
            click.echo(f"faults: {_describe(faults)}")
        click.echo("press Ctrl-C to stop")
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


def _start_play(server: ServeServer, text: str) -> None:
    from k10s_forensics.serve.live import start_play
    from k10s_forensics.serve.play import PlayTimes

    try:
        times = PlayTimes.parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--play-times") from None
    try:
        start_play(server, times)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _describe(faults: Faults) -> str:
    parts = [f"{k}={v}" for k, v in vars(faults).items() if v and k not in ("seed", "timeout_hang_s", "vanish_after")]
    return ", ".join(parts) + f" (seed {faults.seed})"


COMMANDS = (serve_cmd,)
