"""Render the k10s watch manifests with the real ``kubectl kustomize`` and answer RBAC questions
about what was rendered (who may do what, where), for tests/test_deploy.py, test_deploy_watch.py and
test_image.py."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
OVERLAYS = {
    "base": DEPLOY / "watch" / "base",
    "namespaced": DEPLOY / "watch" / "overlays" / "namespaced",
    "events": DEPLOY / "watch" / "overlays" / "events",
    "alertmanager": DEPLOY / "watch" / "overlays" / "alertmanager",
}
SERVICE_ACCOUNT = ("k10s", "k10s-watch")
WRITE_VERBS = {"create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate", "*"}


def kustomize_missing() -> str | None:
    """Why ``kubectl kustomize`` cannot run here, or None."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return "kubectl is not installed (./dev.sh setup installs Debian's kubernetes-client)"
    probe = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True, timeout=60)
    match = re.search(r"Kustomize Version: v(\d+)\.", probe.stdout)
    if match is None or int(match.group(1)) < 4:
        # Debian's kubernetes-client 1.20 embeds kustomize v2.0.3, which knows neither `labels`
        # nor `patches` (kubectl >= 1.22 embeds kustomize >= v4.2).
        return f"this kubectl's kustomize is older than v4 ({probe.stdout.strip()[:120]!r}): install kubectl >= 1.22"
    return None


class _Loader(yaml.SafeLoader):
    """YAML as the API server reads it: kustomize writes ``matchType: =`` unquoted, which
    PyYAML alone would take for YAML 1.1's ``value`` tag; it is the string "="."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def render(folder: Path) -> list[dict]:
    out = subprocess.run(["kubectl", "kustomize", str(folder)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"kubectl kustomize {folder}: {out.stderr}"
    return [d for d in yaml.load_all(out.stdout, Loader=_Loader) if d]


def one(docs: list[dict], kind: str, name: str | None = None) -> dict:
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"{len(found)} {kind} {name or ''} rendered"
    return found[0]


def watch_config(docs: list[dict]) -> dict:
    cm = one(docs, "ConfigMap")
    return yaml.safe_load(cm["data"]["watch.yaml"])

def render_overlays() -> dict[str, list[dict]]:
    """Every overlay rendered (name -> its objects); the test is skipped where kustomize cannot run."""
    why = kustomize_missing()
    if why:
        pytest.skip(why)
    return {name: render(folder) for name, folder in OVERLAYS.items()}


def deployment(docs):
    return one(docs, "Deployment", "k10s-watch")


def container(docs):
    containers = deployment(docs)["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def containerfile() -> dict[str, list[str]]:
    """Instruction -> its arguments, from deploy/Containerfile (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Containerfile").read_text())
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.setdefault(word.upper(), []).append(rest.strip())
    return out



def quantity_bytes(text: str) -> int:
    units = {"": 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    match = re.fullmatch(r"(\d+)([KMGT]i?|k)?", str(text))
    assert match, text
    return int(match.group(1)) * units[match.group(2) or ""]


@dataclass
class Rbac:
    """Who may do what in one rendered overlay: the ServiceAccount's grants, by binding."""

    docs: list[dict]

    def _bound(self) -> list[tuple[str | None, list[dict]]]:
        """(namespace or None for cluster-wide, rules) for every binding of the ServiceAccount."""
        cluster_roles = {d["metadata"]["name"]: d.get("rules") or [] for d in self.docs if d["kind"] == "ClusterRole"}
        roles = {(d["metadata"]["namespace"], d["metadata"]["name"]): d.get("rules") or [] for d in self.docs if d["kind"] == "Role"}
        bound = []
        for b in self.docs:
            if b["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
                continue
            subjects = {(s.get("namespace"), s["name"]) for s in b.get("subjects") or [] if s["kind"] == "ServiceAccount"}
            if SERVICE_ACCOUNT not in subjects:
                continue
            ref = b["roleRef"]
            ns = b["metadata"].get("namespace") if b["kind"] == "RoleBinding" else None
            rules = cluster_roles[ref["name"]] if ref["kind"] == "ClusterRole" else roles[(ns, ref["name"])]
            bound.append((ns, rules))
        return bound

    def allowed(self, verb: str, group: str, resource: str, namespace: str | None) -> bool:
        """As the API server's RBAC authorizer decides (``namespace`` None: cluster-wide)."""
        for ns, rules in self._bound():
            if ns is not None and ns != namespace:
                continue
            for rule in rules:
                if ({group, "*"} & set(rule.get("apiGroups", []))) and ({resource, "*"} & set(rule.get("resources", []))) \
                        and ({verb, "*"} & set(rule.get("verbs", []))):
                    return True
        return False

    def grants(self) -> set[tuple[str | None, str, str, str]]:
        """Every (namespace, group, resource, verb) granted, namespace None for cluster-wide."""
        out = set()
        for ns, rules in self._bound():
            for rule in rules:
                for g in rule.get("apiGroups", []):
                    for r in rule.get("resources", []):
                        for v in rule.get("verbs", []):
                            out.add((ns, g, r, v))
        return out
