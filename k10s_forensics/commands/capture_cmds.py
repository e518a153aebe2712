"""``k10s capture`` (also ``kubectl k10s capture``): collect a bundle from a live cluster, read-only."""

from __future__ import annotations

import sys

import click

from k10s_forensics.collectors import COLLECTORS


def _duration(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    from k10s_forensics.capture import parse_duration
    from k10s_forensics.errors import CollectorError

    if value is None:
        return None
    try:
        return parse_duration(value)
    except CollectorError as exc:
        raise click.BadParameter(str(exc)) from None


def _size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    from k10s_forensics.capture import parse_size
    from k10s_forensics.errors import CollectorError

    try:
        return parse_size(value)
    except CollectorError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("capture")
@click.option("--job", "jobs", multiple=True, metavar="[KIND/]NS/NAME",
              help="A training job: its pods, their nodes, its Kueue workload and queues (repeatable).")
@click.option("-n", "--namespace", "namespaces", multiple=True, metavar="NS", help="Namespace to capture (repeatable).")
@click.option("-A", "--all-namespaces", is_flag=True, help="Capture every namespace.")
@click.option("--duration", default="0s", show_default=True, callback=_duration, help="Sampling window (e.g. 2m).")
@click.option("--interval", default="15s", show_default=True, callback=_duration, help="Time between sampling rounds.")
@click.option("-o", "--output", "output", metavar="DIR", help="Bundle directory [default: k10s-<context>-<UTC time>].")
@click.option("--context", help="Kubeconfig context to use.")
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Kubeconfig file (else $KUBECONFIG, ~/.kube/config, in-cluster).")
@click.option("--prometheus", metavar="URL", help="Prometheus to pull DCGM history from (URL or API-server service-proxy path).")
@click.option("--since", default="6h", show_default=True, callback=_duration, help="How much Prometheus history to pull (back from --to).")
@click.option("--from", "history_from", metavar="TIME", help="History start: RFC 3339 (2026-05-15T12:00:00Z) or relative (-3h).")
@click.option("--to", "history_to", metavar="TIME", help="History end (default now): RFC 3339 or relative (-1h).")
@click.option("--prometheus-token-file", type=click.Path(dir_okay=False), help="Bearer token file for --prometheus (re-read per request).")
@click.option("--prometheus-user", metavar="USER", help="Basic-auth user for --prometheus.")
@click.option("--prometheus-password-file", type=click.Path(dir_okay=False), help="Basic-auth password file.")
@click.option("--prometheus-header", "prometheus_headers", multiple=True, metavar="'NAME: VALUE'",
              help="Extra header for --prometheus, e.g. 'X-Scope-OrgID: team-a' (repeatable).")
@click.option("--prometheus-ca-file", type=click.Path(dir_okay=False), help="CA bundle to verify an https --prometheus.")
@click.option("--prometheus-insecure", is_flag=True, help="Do not verify the https --prometheus certificate.")
@click.option("--concurrency", default=64, show_default=True, type=click.IntRange(1, 1024), help="Calls in flight at once.")
@click.option("--timeout", default="30s", show_default=True, callback=_duration, help="Per-call timeout.")
@click.option("--exec-timeout", default="60s", show_default=True, callback=_duration, help="Per-command timeout inside pods.")
@click.option("--deadline", default=None, callback=_duration, help="Global deadline [default: duration + 10m].")
@click.option("--log-bytes", default="5Mi", show_default=True, callback=_size, help="Log bytes kept per container instance.")
@click.option("--skip", "skip", multiple=True, type=click.Choice([c.name for c in COLLECTORS]), help="Collector not to run (repeatable).")
@click.option("--check", is_flag=True, help="Only say which collectors RBAC would skip, and why; capture nothing.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display; print only the bundle path.")
def capture_cmd(jobs, namespaces, all_namespaces, duration, interval, output, context, kubeconfig, prometheus, since,
                history_from, history_to, prometheus_token_file, prometheus_user, prometheus_password_file,
                prometheus_headers, prometheus_ca_file, prometheus_insecure,
                concurrency, timeout, exec_timeout, deadline, log_bytes, skip, check, quiet) -> None:
    """Collect a bundle from a live cluster, read-only: objects, GPU state, TCP state, logs.

    \b
    Examples:
      k10s capture --job team-a/llama-ft --duration 2m
      kubectl k10s capture -n team-a -o incident-42
      k10s capture -A --prometheus http://localhost:9090 --since 6h
      k10s capture --job team-a/llama-ft --prometheus http://localhost:9090 --from 2026-05-15T12:00:00Z --to 2026-05-15T15:00:00Z
      k10s capture --job team-a/llama-ft --check
    """
    from k10s_forensics.capture import CaptureOptions, capture, load_connection
    from k10s_forensics.capture.progress import NullProgress, RichProgress

    if interval <= 0:
        raise click.BadParameter("must be more than 0", param_hint="--interval")
    access = _prometheus_access(prometheus_token_file, prometheus_user, prometheus_password_file, prometheus_headers,
                                prometheus_ca_file, prometheus_insecure, history_from, history_to, since)
    connection = load_connection(kubeconfig, context)
    if check:
        _check(connection, namespaces, all_namespaces, jobs, timeout)
        return
    options = CaptureOptions(duration_s=duration, interval_s=interval, concurrency=concurrency, timeout_s=timeout,
                             deadline_s=deadline, log_bytes=log_bytes, exec_timeout_s=exec_timeout,
                             prometheus=prometheus, since_s=since, skip=frozenset(skip), history_from=history_from,
                             history_to=history_to, prometheus_access=access)
    progress = NullProgress() if quiet or not sys.stderr.isatty() else RichProgress()
    result = capture(output, connection=connection, namespaces=namespaces, all_namespaces=all_namespaces, jobs=jobs,
                     options=options, progress=progress)
    _summary(result, quiet)
    if result.stop_reason and "interrupted" in result.stop_reason:
        sys.exit(130)


def _prometheus_access(token_file, user, password_file, headers, ca_file, insecure, history_from, history_to, since):
    """The --prometheus-* flags as a PromAccess; bad values become click errors before anything runs."""
    import time

    from k10s_forensics.capture.promclient import PromAccess
    from k10s_forensics.capture.promplan import history_window
    from k10s_forensics.errors import CollectorError

    try:
        parsed = tuple(PromAccess.parse_header(h) for h in headers)
        history_window(since, history_from, history_to, time.time())
    except CollectorError as exc:
        raise click.BadParameter(str(exc)) from None
    if token_file and user:
        raise click.BadParameter("give a token file or basic auth, not both", param_hint="--prometheus-token-file")
    if password_file and not user:
        raise click.BadParameter("needs --prometheus-user", param_hint="--prometheus-password-file")
    return PromAccess(token_file=token_file, user=user, password_file=password_file, headers=parsed,
                      ca_file=ca_file, insecure=insecure)


def _summary(result, quiet: bool) -> None:
    manifest = result.bundle.manifest
    if quiet:
        click.echo(str(result.bundle.path))
        return
    counts: dict[str, int] = {}
    for entry in manifest["collectors"]:
        counts[entry["status"]] = counts.get(entry["status"], 0) + 1
    state = "complete" if result.complete else f"INCOMPLETE ({result.stop_reason})"
    click.echo(f"bundle {result.bundle.path}: {state}; {result.rounds} sampling round(s), "
               f"{result.stats.calls} API calls, {result.elapsed_s:.1f}s")
    click.echo("collectors: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for entry in manifest["collectors"]:
        if entry["status"] != "ok":
            first = entry["errors"][0] if entry["errors"] else ""
            click.echo(f"  {entry['name']:<16} {entry['status']:<8} {first}")


def _check(connection, namespaces, all_namespaces, jobs, timeout) -> None:
    from k10s_forensics.capture import KubeSource, Scope
    from k10s_forensics.capture.check import run_check
    from k10s_forensics.capture.retry import Deadline

    scope = Scope.build(namespaces=tuple(namespaces), all_namespaces=all_namespaces, jobs=tuple(jobs),
                        default_namespace=connection.namespace)
    from k10s_forensics.capture.promfind import NAMESPACES, find_prometheus

    source = KubeSource(connection, Deadline(120), timeout_s=timeout, pool_size=4)
    try:
        verdicts = run_check(source, scope)
        services, problems = find_prometheus(source)
    finally:
        source.close()
    for v in verdicts:
        click.echo(f"{v.collector:<16} {'would run' if v.outcome == 'ok' else 'would be ' + v.outcome}")
        for denied in v.denied:
            click.echo(f"    denied: {denied}")
        if v.collector == "prometheus":
            for svc in services:
                click.echo(f"    found: --prometheus {svc.proxy_path}")
            for problem in problems:
                click.echo(f"    cannot list services: {problem}")
            if not services and not problems:
                click.echo(f"    no Prometheus service in {', '.join(NAMESPACES)} (a port-forwarded URL works too)")


COMMANDS = (capture_cmd,)
