"""What to capture: namespaces (``-n``/``-A``) and training jobs (``--job [KIND/]NS/NAME``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from k10s_forensics.errors import InputError

#: Pod labels whose value is the name of the training job (or its child) the pod belongs to.
JOB_LABEL_KEYS: tuple[str, ...] = (
    "training.kubeflow.org/job-name",
    "jobset.sigs.k8s.io/jobset-name",
    "trainer.kubeflow.org/trainjob-name",
    "batch.kubernetes.io/job-name",
    "job-name",
    "ray.io/cluster",
    "ray.io/originated-from-cr-name",
    "leaderworkerset.sigs.k8s.io/name",
)


@dataclass(frozen=True)
class JobRef:
    """A job named on the command line: ``[KIND/]NAMESPACE/NAME``."""

    namespace: str
    name: str
    kind: str | None = None

    @classmethod
    def parse(cls, text: str) -> "JobRef":
        """Parse ``team-a/llama-ft`` or ``PyTorchJob/team-a/llama-ft``.

        Raises:
            InputError: not of that form.
        """
        parts = [p for p in text.strip().split("/")]
        if len(parts) == 2 and all(parts):
            return cls(parts[0], parts[1])
        if len(parts) == 3 and all(parts):
            return cls(parts[1], parts[2], parts[0])
        raise InputError(f"--job {text!r}: expected [KIND/]NAMESPACE/NAME, e.g. team-a/llama-ft or PyTorchJob/team-a/llama-ft")

    def kind_matches(self, kind: str, plural: str, group: str) -> bool:
        if self.kind is None:
            return True
        wanted = self.kind.lower()
        return wanted in {kind.lower(), plural.lower(), f"{plural}.{group}".lower(), f"{kind}.{group}".lower()}

    def __str__(self) -> str:
        return f"{self.kind + '/' if self.kind else ''}{self.namespace}/{self.name}"


@dataclass
class Scope:
    """Namespaces and jobs of one capture. ``all_namespaces`` wins over ``namespaces``."""

    all_namespaces: bool = False
    namespaces: tuple[str, ...] = ()
    jobs: tuple[JobRef, ...] = field(default_factory=tuple)

    @classmethod
    def build(cls, *, namespaces: tuple[str, ...] = (), all_namespaces: bool = False, jobs: tuple[str, ...] = (),
              default_namespace: str = "default") -> "Scope":
        refs = tuple(JobRef.parse(j) for j in jobs)
        if all_namespaces:
            return cls(True, (), refs)
        names = list(dict.fromkeys(list(namespaces) + [r.namespace for r in refs]))
        if not names:
            names = [default_namespace]
        return cls(False, tuple(names), refs)

    @property
    def job_scoped(self) -> bool:
        return bool(self.jobs) and not self.all_namespaces

    def ns_paths(self, prefix: str, plural: str) -> list[str]:
        """List paths for a namespaced resource in scope (one cluster-wide path with ``-A``)."""
        if self.all_namespaces:
            return [f"{prefix}/{plural}"]
        return [f"{prefix}/namespaces/{ns}/{plural}" for ns in self.namespaces]

    def in_namespaces(self, namespace: str | None) -> bool:
        return self.all_namespaces or namespace in self.namespaces

    def manifest(self) -> dict[str, Any]:
        return {"namespaces": ["*"] if self.all_namespaces else list(self.namespaces),
                "jobs": [f"{j.namespace}/{j.name}" for j in self.jobs],
                "all_namespaces": self.all_namespaces}


def pod_job_names(pod: dict[str, Any]) -> set[str]:
    """Names of training jobs (or their children) a pod's labels point to."""
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return {str(labels[k]) for k in JOB_LABEL_KEYS if labels.get(k)}
