"""Connecting as kubectl does: kubeconfig (``--kubeconfig``, ``$KUBECONFIG``, ``~/.kube/config``) or in-cluster."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k10s_forensics.errors import CollectorError, InputError

_SA_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


@dataclass
class ClusterConnection:
    """Where capture connects to: kubeconfig context (or in-cluster) and its defaults."""

    configuration: Any
    context: str
    server: str
    namespace: str
    in_cluster: bool = False


def load_connection(kubeconfig: str | None = None, context: str | None = None) -> ClusterConnection:
    """Load client configuration the way kubectl does.

    Order: ``--kubeconfig``, ``$KUBECONFIG`` (a list of files merged), ``~/.kube/config``,
    then the in-cluster service account when running in a pod.

    Raises:
        InputError: no usable configuration, or the context does not exist.
        CollectorError: the in-cluster configuration cannot be loaded.
    """
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    configuration = client.Configuration()
    env_files = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    default_file = Path("~/.kube/config").expanduser()
    have_file = bool(kubeconfig) or any(Path(p).expanduser().exists() for p in env_files) or default_file.exists()
    if have_file:
        source = kubeconfig or (os.pathsep.join(env_files) if env_files else str(default_file))
        try:
            contexts, current = config.list_kube_config_contexts(config_file=source)
            config.load_kube_config(config_file=source, context=context, client_configuration=configuration, persist_config=False)
        except (ConfigException, OSError, ValueError, TypeError) as exc:
            raise InputError(f"kubeconfig {source}: {exc}") from None
        chosen = next((c for c in contexts if c.get("name") == (context or (current or {}).get("name"))), current or {})
        namespace = (chosen.get("context") or {}).get("namespace") or "default"
        return ClusterConnection(configuration, chosen.get("name") or "unknown", configuration.host, namespace)
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        try:
            config.load_incluster_config(client_configuration=configuration)
        except ConfigException as exc:
            raise CollectorError(f"in-cluster config: {exc}") from None
        ns_file = _SA_DIR / "namespace"
        namespace = ns_file.read_text().strip() if ns_file.exists() else "default"
        return ClusterConnection(configuration, "in-cluster", configuration.host, namespace, in_cluster=True)
    raise InputError("no kubeconfig found (tried --kubeconfig, $KUBECONFIG, ~/.kube/config) and not running in a pod")
