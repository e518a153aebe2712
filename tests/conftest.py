"""Shared fixtures: paths to the real samples and a scratch bundle factory."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The real samples are vendored in the repo (tests/data/README.md says how new ones arrive).
REAL_SAMPLES = REPO / "tests" / "data" / "real-samples"
SAMPLE_BUNDLES = REPO / "sample-bundles"


@pytest.fixture(scope="session")
def real_samples() -> Path:
    assert REAL_SAMPLES.is_dir(), f"real samples missing at {REAL_SAMPLES}: they are part of the repo"
    return REAL_SAMPLES
