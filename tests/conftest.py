import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def shared_path(*parts) -> Path:
    """A path under ../shared/, or skip the test with a clear message when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared test data not found: {p} (clone the project beside ../shared/ to run this)")
    return p


@pytest.fixture
def shared():
    return shared_path
