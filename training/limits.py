"""Upper bounds of the counts and durations the ``cardgym`` commands, the benchmarks and the run configs accept.

Past a bound a command refuses the number with one line naming the option and the bound (``argument --deals: must
be an integer from 1 to 10,000,000``), before anything starts: without one, a mistyped count fails late and
obscurely (numpy's "Maximum allowed dimension exceeded", an ``OverflowError``), exhausts the memory or runs for
years. The bounds lie far above any run the project makes.
"""

from __future__ import annotations

MAX_DEALS = 10_000_000
"""Episodes one command plays: ``--deals`` (eval, league, play, watch), ``--eval-deals``, ``--final-deals`` (per
field). A league keeps every deal's results, ``8 * seats`` bytes each: 320 MB at four seats."""
MAX_TABLES = 65_536
"""Tables stepped at once: ``--tables`` (random, train), ``--batch-size`` (eval). A table's state is about 1.5 kB;
training keeps 16 observations of every table per rollout (about 5 kB each)."""
MAX_SHARD_GROUPS = 4_096
"""Deal groups per league shard (``--shard-groups``): a shard steps groups × seats tables at once, at most
4,096 × 9 seats = 36,864, within :data:`MAX_TABLES`."""
MAX_STEPS = 10**12
"""Learner decisions: ``--decisions``, ``--imitate``, ``--eval-every``, ``--exploiters`` (train), ``--steps``
(exploit)."""
MAX_WORKERS = 256
"""Local worker processes (``--workers``)."""
MAX_THREADS = 256
"""Torch threads of a learner (``ppo.threads`` of a recipe, ``--threads`` of the training benchmarks)."""
MAX_FAMILY_MEMBERS = 64
"""Members a family shorthand of ``--opponents`` (``styles:N``, ``loose-styles:N``, ``careless-styles:N``,
``careless-bots:N``) puts in the pool: every member is built, and every evaluation plays each one."""
MAX_MINUTES = 100_000.0
"""A training's time budget in minutes (``--minutes``; about ten weeks)."""
MAX_DELAY = 60.0
"""Seconds ``cardgym watch --delay`` pauses after each move."""
MAX_TIMED_SECONDS = 86_400.0
"""Seconds a benchmark times each of its measurements (``--seconds``; a day)."""
