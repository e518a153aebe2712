"""deploy/rbac.yaml is least-privilege and grants exactly what the collectors declare."""

from __future__ import annotations

from pathlib import Path

import yaml

from k10s_forensics.collectors import COLLECTORS

RBAC = Path(__file__).resolve().parents[1] / "deploy" / "rbac.yaml"


def _rules():
    docs = [d for d in yaml.safe_load_all(RBAC.read_text()) if d]
    role = next(d for d in docs if d["kind"] == "ClusterRole")
    return role["rules"]


def _granted():
    granted = set()
    for rule in _rules():
        for group in rule["apiGroups"]:
            for res in rule["resources"]:
                for verb in rule["verbs"]:
                    granted.add((group, res, verb))
    return granted


def test_only_read_verbs_plus_exec_create():
    for group, res, verb in _granted():
        assert res not in ("secrets", "configmaps") and "*" not in (group, res, verb)
        if verb == "create":
            assert (group, res) == ("", "pods/exec"), f"create granted on {group}/{res}"
        else:
            assert verb in ("get", "list", "watch"), (group, res, verb)
    assert ("", "pods/exec", "create") in _granted()
    for sub in ("pods/log", "pods/proxy", "services/proxy"):
        assert {v for g, r, v in _granted() if r == sub} == {"get"}


def test_every_access_a_collector_uses_is_granted():
    granted = _granted()
    for collector in COLLECTORS:
        for access in collector.access:
            res = access.resource + (f"/{access.subresource}" if access.subresource else "")
            assert (access.group, res, access.verb) in granted, f"{collector.name}: {access.describe()} missing from rbac.yaml"


def test_nothing_granted_that_no_collector_uses():
    used = {(a.group, a.resource + (f"/{a.subresource}" if a.subresource else "")) for c in COLLECTORS for a in c.access}
    used.add(("", "pods/exec"))
    for group, res, _verb in _granted():
        assert (group, res) in used, f"{group}/{res} is granted but no collector declares it"
