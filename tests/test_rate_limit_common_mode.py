"""An outside service's rate limit is the job's, not a rank's (queries/_incident_common_mode.sql; docs/rules.md,
"Session 57: an outside service's rate limit").

A dataset or model hub answering HTTP 429 counts the job's requests together (one token, one egress address): every
rank streaming the same data at start-up meets it, whichever rank's request it refused first (batch 341's
torchtitan#2239: rank 356's ``HfHubHTTPError: 429 Client Error: Too Many Requests`` while every rank loaded C4). The
wordings of huggingface_hub, requests, datasets' retry loop and APIs' ``Rate limit exceeded`` name no rank; the same
service's other errors (a 500, a 404, a refused connection: one node's network may be the one at fault) stay the rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 5, 23, 30, tzinfo=dt.timezone.utc)
HEAD = ["[rank{r}]: Traceback (most recent call last):", '[rank{r}]:   File "/opt/torchtitan/train.py", line 620, in <module>',
        "[rank{r}]:     trainer = Trainer(config)"]
URL = "https://huggingface.co/api/datasets/allenai/c4/tree/main/en"


def _failures(error: str, rank: int, folder) -> list[tuple]:
    lines = [line.format(r=rank) for line in HEAD] + [f"[rank{rank}]: {error}"]
    findings = analyze(pasted(lines, folder, 8, NOW, world=512))["findings"]
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings)]


@pytest.mark.parametrize("error", [
    f"huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: {URL}",
    f"requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: {URL}",
    "urllib.error.HTTPError: HTTP Error 429: Too Many Requests",
    "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit exceeded', 'type': 'requests'}}",
], ids=["hub", "requests", "urllib", "api"])
@pytest.mark.parametrize("rank", [0, 356])
def test_a_rate_limit_names_no_rank(tmp_path, error, rank):
    assert _failures(error, rank, tmp_path) == []


@pytest.mark.parametrize("error", [
    f"huggingface_hub.errors.HfHubHTTPError: 500 Server Error: Internal Server Error for url: {URL}",
    f"requests.exceptions.HTTPError: 404 Client Error: Not Found for url: {URL}",
], ids=["500", "404"])
def test_the_services_other_errors_stay_the_ranks(tmp_path, error):
    assert _failures(error, 356, tmp_path) == [("rank-failure", "python-exception", [356])]


def test_the_finding_says_why(tmp_path):
    lines = [line.format(r=3) for line in HEAD] + [f"[rank3]: requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: {URL}"]
    failure = next(f for f in analyze(pasted(lines, tmp_path, 8, NOW, world=16))["findings"] if f["rule"] == "rank-failure")
    assert failure["ranks"] == [] and "an outside service's rate limit (HTTP 429" in failure["summary"]
