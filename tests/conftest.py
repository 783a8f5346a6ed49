"""Test-wide settings.

Hypothesis runs without a per-example deadline: the first example of a property test can pay for loading or
compiling numba kernels, and a deadline then fails the test on a busy machine (a shared CI runner) although nothing
is wrong. Speed is measured in benchmarks/, never asserted in tests.
"""

from hypothesis import settings

settings.register_profile("cardgym", deadline=None)
settings.load_profile("cardgym")
