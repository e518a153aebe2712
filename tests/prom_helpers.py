"""A real Prometheus for the tests: backfill OpenMetrics with promtool, serve it on 127.0.0.1.

``prometheus_with(om_file, workdir)`` loads the file with ``promtool tsdb create-blocks-from
openmetrics`` into a fresh data dir, starts ``prometheus`` on a free port with a retention
long enough for any simulated date, waits for ``/-/ready`` and stops it (SIGTERM, then
SIGKILL) when the ``with`` block ends. Tests skip when the Debian ``prometheus`` package
is not installed (``./dev.sh setup`` installs it).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.engine import connect
from k10s_forensics.serve import start_server
from k10s_forensics.simulate.prom_history import write_history
from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle

CONFIG = "global:\n  scrape_interval: 15s\n"


def need_prometheus() -> None:
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        pytest.skip("prometheus/promtool not installed (Debian package prometheus; ./dev.sh setup installs it)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def backfill(om_file: Path, data_dir: Path) -> None:
    out = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om_file), str(data_dir)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"promtool failed: {out.stderr[-2000:]}"


def self_signed(workdir: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files), made with ``cryptography``."""
    import datetime as dt
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "k10s-test-prometheus")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = workdir / "tls.crt", workdir / "tls.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return cert_file, key_file


@contextlib.contextmanager
def prometheus_with(om_file: Path, workdir: Path, extra_args: tuple[str, ...] = (),
                    web_config: str | None = None, probe_headers: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the base URL of a real Prometheus serving ``om_file``'s samples.

    ``web_config``: the text of a Prometheus web config (TLS, basic auth); the URL is then
    https when it has ``tls_server_config``, and readiness is probed with ``probe_headers``.
    """
    import ssl

    need_prometheus()
    workdir.mkdir(parents=True, exist_ok=True)
    data = workdir / "data"
    backfill(om_file, data)
    (workdir / "prometheus.yml").write_text(CONFIG, encoding="utf-8")
    scheme, probe_ssl = "http", None
    if web_config is not None:
        (workdir / "web.yml").write_text(web_config, encoding="utf-8")
        extra_args = (*extra_args, f"--web.config.file={workdir / 'web.yml'}")
        if "tls_server_config" in web_config:
            scheme, probe_ssl = "https", ssl._create_unverified_context()
    port = _free_port()
    log = open(workdir / "prometheus.log", "w", encoding="utf-8")
    proc = subprocess.Popen(["prometheus", f"--config.file={workdir / 'prometheus.yml'}", f"--storage.tsdb.path={data}",
                             f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=36500d",
                             *extra_args], stdout=log, stderr=subprocess.STDOUT)
    url = f"{scheme}://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"prometheus exited: {(workdir / 'prometheus.log').read_text()[-2000:]}"
            try:
                probe = urllib.request.Request(f"{url}/-/ready", headers=probe_headers or {})
                with urllib.request.urlopen(probe, timeout=2, context=probe_ssl) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "prometheus not ready after 60 s"
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def query(url: str, path: str) -> dict:
    with urllib.request.urlopen(url + path, timeout=30) as resp:
        return json.loads(resp.read())


def strip_bundle(src: Path, dst: Path, *, drop_job_pods: bool = False, drop_nodes: tuple[str, ...] = ()) -> Path:
    """A copy of a simulated bundle without live GPU evidence (no DCGM scrapes, no nvidia-smi), and
    optionally without the job's pods, their logs and execs (deleted after the failure) and without the Node objects
    ``drop_nodes`` (deleted: a spot VM the cloud reclaimed)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tables", "*.lock"))
    manifest = json.loads((dst / "manifest.json").read_text())
    job_ns = {j.split("/")[0] for j in (manifest.get("scope") or {}).get("jobs") or []}

    def keep(name: str, row: dict) -> bool:
        if name == "scrapes":
            return False
        if name == "exec":
            return row["source"] != "nvidia-smi-xml" and not (drop_job_pods and row["namespace"] in job_ns)
        if name == "logs":
            return not drop_job_pods
        if name == "objects" and row["kind"] == "Node" and row["name"] in drop_nodes:
            return False
        if name == "objects" and drop_job_pods:
            return not (row["kind"] in ("Pod", "Event") and row["namespace"] in job_ns)
        return True

    for name in ("scrapes", "exec", "logs", "objects"):
        path = dst / "raw" / f"{name}.parquet"
        rows = [r for r in pq.read_table(path).to_pylist() if keep(name, r)]
        pq.write_table(pa.Table.from_pylist(rows, schema=RAW_SCHEMAS[name]), path, compression="zstd")
    return dst


def add_objects(bundle: Path, bodies: list[dict]) -> None:
    """Append objects (e.g. Services) to a bundle's last listing."""
    path = bundle / "raw" / "objects.parquet"
    rows = pq.read_table(path).to_pylist()
    at = max(r["captured_at"] for r in rows)
    rows += [{"captured_at": at, "api_version": b["apiVersion"], "kind": b["kind"], "namespace": b["metadata"].get("namespace"),
              "name": b["metadata"]["name"], "uid": b["metadata"]["uid"], "body": json.dumps(b)} for b in bodies]
    pq.write_table(pa.Table.from_pylist(rows, schema=RAW_SCHEMAS["objects"]), path, compression="zstd")


def service(ns: str, name: str, ports: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}"},
            "spec": {"ports": ports}}


PROXY = "/api/v1/namespaces/monitoring/services/prometheus-k8s:9090/proxy"


def capture_from_prometheus(root: Path, original: Path, truth: dict, convention: str, drop_pods: bool = False,
                             via_proxy: bool = False, drop_nodes: tuple[str, ...] = ()) -> Path:
    """Capture ``truth``'s job from a real Prometheus holding ``original``'s history written in ``convention``
    (the served API without the job's pods when ``drop_pods``). ``via_proxy``: read Prometheus through the (served) API server's service proxy path."""
    root.mkdir(parents=True, exist_ok=True)
    write_history(original, root / "history.om", convention)
    served = strip_bundle(original, root / "served", drop_job_pods=drop_pods, drop_nodes=drop_nodes)
    with prometheus_with(root / "history.om", root / "prom") as url:
        if via_proxy:
            add_objects(served, [service("monitoring", "prometheus-k8s", [{"name": "web", "port": 9090}])])
        srv = start_server(served)
        if via_proxy:
            srv.upstreams[PROXY] = url
            url = PROXY
        try:
            kubeconfig = srv.write_kubeconfig(root / "kubeconfig")
            window = truth["window"]
            options = CaptureOptions(timeout_s=10, prometheus=url, history_from=window["start"], history_to=window["end"])
            capture(root / "captured", kubeconfig=str(kubeconfig), jobs=(truth["job"],), options=options)
        finally:
            srv.stop()
    return root / "captured"


def bundle_rows(bundle: Path, sql: str) -> list[dict]:
    cur = connect(Bundle.open(bundle)).execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]
