"""The fifty-seventh set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why: ``_T57[how]``, one
dict each way (``import``, ``podlog``); empty since session 63 (its one miss, the pod logs' only, read right)."""

from __future__ import annotations

_T57: dict[str, dict[str, str]] = {
    "import": {},
    # read right since session 63 (devM: the same exception raised to the letter by another rank within ten seconds
    # fails them alike; tests/test_same_exception_to_the_letter.py): 2.14.1/t57-spawn-2x2-config-every-rank-step8 (podlog)
    "podlog": {},
}
