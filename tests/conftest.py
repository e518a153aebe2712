"""Shared fixtures: paths to the real samples and a scratch bundle factory."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL_SAMPLES = SHARED / "real-samples"
SAMPLE_BUNDLES = REPO / "sample-bundles"


@pytest.fixture(scope="session")
def real_samples() -> Path:
    if not REAL_SAMPLES.is_dir():
        pytest.skip(f"real samples not found at {REAL_SAMPLES} (CI clones the repo with shared/ beside it)")
    return REAL_SAMPLES
