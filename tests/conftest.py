"""Test-wide settings.

Hypothesis runs without a per-example deadline: the first example of a property test can pay for loading or
compiling numba kernels, and a deadline then fails the test on a busy machine (a shared CI runner) although nothing
is wrong. Speed is measured in benchmarks/, never asserted in tests.

Stable-Baselines3 makes a log folder for every model that learns (``$SB3_LOGDIR``, else a new ``SB3-<time>`` folder in
the system's temporary folder); the tests point it at their own temporary folder, so a run leaves nothing behind.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("cardgym", deadline=None)
settings.load_profile("cardgym")


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_the_tests_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
