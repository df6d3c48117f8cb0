"""conftest.py — paths shared by the tests of the tvds Python package."""
import os

import pytest

REPO = os.environ.get("TVDS_REPO") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.fixture
def repo():
    return REPO


@pytest.fixture
def shoe_case():
    return os.path.join(REPO, "models", "shoe", "sdnd100a_lagrange.ini")


@pytest.fixture
def bob_case():
    return os.path.join(REPO, "models", "beam_on_beam", "beam_on_beam.ini")
