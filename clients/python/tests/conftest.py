"""What the live suites share: the two tenants' clients of the Engram that clients/run-live-tests started
(ENGRAM_URL, ENGRAM_KEY, ENGRAM_OTHER_KEY), and waiting on a condition with a deadline."""

import os
import time
import uuid
from typing import Callable

import pytest

from engram_client import Engram

PATIENCE_S = 90


@pytest.fixture(scope="module")
def engram() -> Engram:
    if not os.environ.get("ENGRAM_URL"):
        pytest.fail("ENGRAM_URL, ENGRAM_KEY and ENGRAM_OTHER_KEY are unset: run clients/run-live-tests")
    return Engram(os.environ["ENGRAM_URL"], os.environ["ENGRAM_KEY"])


@pytest.fixture(scope="module")
def other(engram: Engram) -> Engram:
    return Engram(os.environ["ENGRAM_URL"], os.environ["ENGRAM_OTHER_KEY"])


def eventually(what: str, check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {PATIENCE_S} s")
        time.sleep(0.3)


def unique(text: str) -> str:
    return f"{text} (run {uuid.uuid4().hex[:8]})"


def tag(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
