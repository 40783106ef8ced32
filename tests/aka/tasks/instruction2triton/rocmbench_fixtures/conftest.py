# Fixtures of arena's rocmbench_fixtures fixture (not AKA's file): the
# device, a dtype with params, and shapes from pytest_generate_tests.
import os

import pytest


@pytest.fixture
def device():
    return os.environ.get("AKA_FIXTURE_DEVICE", "cpu")


@pytest.fixture(params=["float32", "float64"])
def dtype_name(request):
    return request.param


def pytest_generate_tests(metafunc):
    if "rows" in metafunc.fixturenames:
        metafunc.parametrize("rows", [3, 17])
