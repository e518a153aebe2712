"""A bundle with planted canaries: real samples (nvidia-smi XML, dcgm-exporter text, ss output, a
multi-rank NCCL incident log) with secrets and identities planted where they hide in real clusters: env
values, annotations (including last-applied-configuration), container args, log lines, command outputs,
Prometheus labels, event messages, the manifest, hostnames that embed IPs. ``find_leaks`` searches every
byte of a bundle for them. Used by the sharing tests (redact, pack, verify).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from pathlib import Path

import pyarrow.parquet as pq

from k10s_forensics.store.bundle import BundleWriter, new_manifest

REAL = Path(__file__).resolve().parent / "data" / "real-samples"
T0 = dt.datetime(2026, 3, 1, 10, 0, tzinfo=dt.timezone.utc)

# ---- secrets: must be gone at every level -------------------------------------------------
SECRETS = {
    "hf": "hf_CanaryHuggingFaceToken0123456789abcd",
    "wandb": "c4n4ry0wandb0key0123456789abcdef01234567",
    "db_password": "Canary-DB-Pa55word!",
    "arg_api_key": "canary-arg-api-key-7f3e9a",
    "annotation_token": "canary-vault-token-31337",
    "last_applied_secret": "canary-last-applied-secret-42",
    "bearer": "canaryBearerToken0123456789abcdef",
    "jwt": "eyJhbGciOiJSUzI1NiIsImtpZCI6ImNhbmFyeSJ9.eyJzdWIiOiJzeXN0ZW06Y2FuYXJ5In0.Y2FuYXJ5LXNpZ25hdHVyZQ",
    "pem_body": "MIIEowIBAAKCAQEAcanaryPrivateKeyBody0123456789",
    "aws_access": "AKIACANARY0123456789",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY1",
    "gcp_key_id": "canarygcpkeyid0123456789abcdef",
    "azure": "Q2FuYXJ5QXp1cmVBY2NvdW50S2V5MDEyMzQ1Njc4OQ==",
    "url_password": "CanaryUrlPassw0rd",
    "github": "ghp_Canary0123456789abcdefghijABCDEFGHIJ",
    "slack": "xoxb-1234567890-canary-slack-token",
    "stdout_secret": "canary-stdout-secret-99",
    "cookie": "sessionid=canarycookie0123",
}
# ---- identities: must be gone at the strict level -----------------------------------------
NODE_IP_HOST = "ip-10-0-3-17.ec2.internal"
IDENTITIES = {
    "node_ip_host": NODE_IP_HOST,
    "node_ip_dashed": "10-0-3-17",
    "node_ip": "10.0.3.17",
    "node2": "gpu-node-canary7",
    "node2_fqdn": "gpu-node-canary7.hpc.acmecanary.example",
    "domain": "acmecanary",
    "namespace": "falcon-canary-ns",
    "job": "llama-canary-ft",
    "pod_ip": "10.0.4.46",
    "registry": "registry.acmecanary.io",
    "label_value": "falcon-canary-research",
    "account": "123456789012",
    "dcgm_host": "dcgmcanary-2de458d9968c",
    "api_server": "ABCDEFCANARY",
    "nccl_host_pod": "llama-canary-ft-worker-1",
}


def _uid(name: str) -> str:
    """A random-looking UID, as the API server assigns (never derived from names in real clusters)."""
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, name))


def _pod(name: str, node: str, ip: str, rank: int) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": IDENTITIES["namespace"],
            "uid": _uid(name),
            "labels": {
                "training.kubeflow.org/job-name": IDENTITIES["job"],
                "training.kubeflow.org/replica-type": "worker",
                "training.kubeflow.org/replica-index": str(rank),
                "acmecanary.example/team": IDENTITIES["label_value"],
            },
            "annotations": {
                "vault.hashicorp.com/agent-token": SECRETS["annotation_token"],
                "kubectl.kubernetes.io/last-applied-configuration": json.dumps(
                    {"kind": "Pod", "spec": {"containers": [{"env": [{"name": "API_SECRET", "value": SECRETS["last_applied_secret"]}]}]}}
                ),
            },
            "ownerReferences": [{"kind": "PyTorchJob", "name": IDENTITIES["job"], "uid": _uid("job")}],
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "pytorch",
                    "image": f"{IDENTITIES['registry']}:5000/falcon/trainer:v3",
                    "args": ["--api-key", SECRETS["arg_api_key"], "--epochs", "3"],
                    "env": [
                        {"name": "HF_TOKEN", "value": SECRETS["hf"]},
                        {"name": "WANDB_API_KEY", "value": SECRETS["wandb"]},
                        {"name": "DB_PASSWORD", "value": SECRETS["db_password"]},
                        {"name": "RANK", "value": str(rank)},
                        {"name": "MASTER_ADDR", "value": f"{IDENTITIES['job']}-worker-0"},
                        {"name": "DATABASE_URL", "value": f"postgres://trainer:{SECRETS['url_password']}@db.internal:5432/runs"},
                    ],
                    "resources": {"limits": {"nvidia.com/gpu": "8"}},
                }
            ],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        },
        "status": {"phase": "Running", "podIP": ip, "hostIP": IDENTITIES["node_ip"], "startTime": "2026-03-01T09:55:00Z"},
    }


def _node(name: str, ip: str, hostname: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": _uid(name),
            "labels": {
                "kubernetes.io/hostname": name,
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                "node.kubernetes.io/instance-type": "p5.48xlarge",
                "acmecanary.example/team": IDENTITIES["label_value"],
            },
        },
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": hostname}],
            "capacity": {"nvidia.com/gpu": "8"},
            "allocatable": {"nvidia.com/gpu": "8"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        },
    }


def _real(rel: str) -> str:
    path = REAL / rel
    assert path.is_file(), f"real sample missing: {path}"
    return path.read_text(encoding="utf-8", errors="replace")


def _log_body(lines: list[str]) -> str:
    return "".join(f"{(T0 + dt.timedelta(seconds=i)).isoformat().replace('+00:00', 'Z')} {line}\n" for i, line in enumerate(lines))


def build_canary_bundle(path: Path) -> Path:
    """A bundle full of planted secrets and identities (see SECRETS, IDENTITIES)."""
    ns, job = IDENTITIES["namespace"], IDENTITIES["job"]
    node1, node2 = NODE_IP_HOST, IDENTITIES["node2"]
    manifest = new_manifest(
        cluster={"context": f"arn:aws:eks:us-east-1:{IDENTITIES['account']}:cluster/falcon-prod",
                 "server": "https://ABCDEFCANARY.gr7.us-east-1.eks.amazonaws.com", "kubernetes_version": "v1.31.2"},
        scope={"namespaces": [ns], "jobs": [f"{ns}/{job}"]},
        window_start=T0, window_end=T0 + dt.timedelta(minutes=5), created_at=T0 + dt.timedelta(minutes=5),
    )
    w = BundleWriter(path, manifest)
    pods = [(f"{job}-worker-0", node1, "10.0.3.45", 0), (f"{job}-worker-1", node2, IDENTITIES["pod_ip"], 1),
            (f"{job}-worker-10", node2, "10.0.4.47", 10)]
    objects = [_node(node1, IDENTITIES["node_ip"], node1), _node(node2, "10.0.4.22", IDENTITIES["node2_fqdn"])]
    objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "uid": _uid("ns")}})
    objects += [_pod(*p) for p in pods]
    objects.append({
        "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
        "metadata": {"name": job, "namespace": ns, "uid": _uid("job")},
        "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 3, "template": {"spec": {"containers": [
            {"name": "pytorch", "image": f"{IDENTITIES['account']}.dkr.ecr.us-east-1.amazonaws.com/falcon/trainer:v3",
             "command": ["sh", "-c", f"export AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']} && torchrun train.py"]}]}}}}},
        "status": {"conditions": [{"type": "Running", "status": "True"}]},
    })
    objects.append({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"{job}-worker-1.17a8b3c4d5e6f", "namespace": ns, "uid": _uid("ev")},
        "involvedObject": {"kind": "Pod", "name": f"{job}-worker-1", "namespace": ns},
        "reason": "Scheduled", "type": "Normal", "source": {"component": "default-scheduler"},
        "message": f"Successfully assigned {ns}/{job}-worker-1 to {node2}", "lastTimestamp": "2026-03-01T09:55:00Z", "count": 1,
    })
    for obj in objects:
        meta = obj["metadata"]
        w.add("objects", {"captured_at": T0, "api_version": obj["apiVersion"], "kind": obj["kind"], "namespace": meta.get("namespace"),
                          "name": meta["name"], "uid": meta["uid"], "body": json.dumps(obj)})
    xml = _real("nvidia-smi-xml/a100-sxm4-80gb_driver-535.54.03_v12_mig.xml")
    ss_text = _real("ss/ss-itn_ipv4-mapped-ipv6_mysql_retrans_plantegg.txt").replace("192.168.0.174", IDENTITIES["pod_ip"])
    for pod, node, _ip, _rank in pods[:2]:
        w.add("exec", {"captured_at": T0, "duration_ms": 120, "source": "nvidia-smi-xml", "node": node, "namespace": ns, "pod": pod,
                       "container": "pytorch", "command": "nvidia-smi -q -x", "exit_code": 0, "stdout": xml, "stderr": "", "error": None})
        w.add("exec", {"captured_at": T0, "duration_ms": 30, "source": "ss", "node": node, "namespace": ns, "pod": pod, "container": "pytorch",
                       "command": "ss -tin", "exit_code": 0, "stdout": ss_text, "stderr": "", "error": None})
    w.add("exec", {"captured_at": T0, "duration_ms": 5, "source": "env-dump", "node": node1, "namespace": ns, "pod": pods[0][0],
                   "container": "pytorch", "command": "printenv", "exit_code": 0,
                   "stdout": f"HOSTNAME={pods[0][0]}\nSTORAGE_SECRET={SECRETS['stdout_secret']}\nAWS_ACCESS_KEY_ID={SECRETS['aws_access']}\n"
                             f"AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=falcon;AccountKey={SECRETS['azure']};EndpointSuffix=core.windows.net\n",
                   "stderr": "", "error": None})
    dcgm = _real("dcgm-exporter/h100-80gb-hbm3_pod-labels-populated_dcgm-exporter-issue272-comment_excerpt.prom")
    dcgm = dcgm.replace("af13-2de458d9968c", IDENTITIES["dcgm_host"]).replace("kbf-d068711", ns).replace("test-h100-0", pods[1][0])
    w.add("scrapes", {"captured_at": T0, "source": "dcgm-exporter", "node": node2,
                      "url": f"/api/v1/nodes/{node2}/proxy/metrics", "status": 200, "body": dcgm, "error": None})
    incident = _real("incidents/funasr-2006-multinode-allreduce-timeout/log.txt").splitlines()[:60]
    incident = [line.replace("liangxianchen-funasr-15wh-train-lxc0-w-0", pods[1][0]) for line in incident]
    canary_lines = [
        f"{pods[1][0]}:15325:16199 [1] NCCL INFO Bootstrap : Using eth0:{IDENTITIES['pod_ip']}<0>",
        f"{pods[1][0]}:15325:16199 [1] NCCL INFO NET/Socket : Using [0]eth0:{IDENTITIES['pod_ip']}<0> peer {NODE_IP_HOST}",
        f"calling https://api.internal/v1 with Authorization: Bearer {SECRETS['bearer']}",
        f"sa token {SECRETS['jwt']}",
        "-----BEGIN RSA PRIVATE KEY-----",
        SECRETS["pem_body"],
        "-----END RSA PRIVATE KEY-----",
        f'loaded credentials {{"type": "service_account", "private_key_id": "{SECRETS["gcp_key_id"]}", "client_email": "x@p.iam"}}',
        f"git clone https://{SECRETS['github']}@github.com/acme/repo",
        f"notify slack {SECRETS['slack']}",
        f"Cookie: {SECRETS['cookie']}",
        "[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout",
    ]
    for pod, node, _ip, _rank in pods:
        w.add("logs", {"captured_at": T0, "node": node, "namespace": ns, "pod": pod, "pod_uid": _uid(pod), "container": "pytorch",
                       "previous": False, "body": _log_body(incident + canary_lines), "error": None})
    w.record_collector({"name": "pods", "status": "ok", "rows": len(pods)})
    w.record_collector({"name": "exec", "status": "partial", "rows": 5,
                        "errors": [f"exec into {ns}/{job}-worker-10 on {node2}: forbidden"]})
    return w.close().path


# ---- searching every byte ------------------------------------------------------------------
def _strings(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes):
        return [value.decode("utf-8", "replace")]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return [str(value)]


def bundle_texts(root: Path) -> dict[str, str]:
    """Every file of the bundle as searchable text (Parquet decompressed, statistics and metadata included)."""
    out: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        parts = [data.decode("utf-8", "replace")]
        if rel.endswith(".parquet"):
            pf = pq.ParquetFile(path)
            table = pf.read()
            for column in table.columns:
                parts.extend(_strings(column.to_pylist()))
            meta = pf.metadata
            for rg in range(meta.num_row_groups):
                for ci in range(meta.num_columns):
                    stats = meta.row_group(rg).column(ci).statistics
                    if stats is not None and stats.has_min_max:
                        parts.extend(_strings([stats.min, stats.max]))
            parts.extend(_strings({k: v for k, v in (meta.metadata or {}).items()}))
        out[rel] = "\n".join(parts)
    return out


def find_leaks(root: Path, canaries: dict[str, str]) -> list[str]:
    texts = bundle_texts(root)
    return [f"{name} ({value!r}) in {rel}" for rel, text in texts.items() for name, value in canaries.items() if value in text]
