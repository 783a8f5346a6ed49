"""The lineups of a league: which ``n`` of the ``A`` agents share a table, and in which order round it.

``schedule_lineups(A, n, seed)`` is a pure function of its arguments (``A >= n``: a league compares distinct agents;
``cardgym eval`` plays a lineup with repeated agents). Each lineup is played in every rotation of every deal group
(:mod:`training.league`), so within a lineup each agent sits at every seat equally often; the schedule balances the
rest:

- **agents**: every agent is in the same number of lineups;
- **pairs**: every two agents meet; with at most :data:`MAX_ALL_LINEUPS` possible lineups the schedule is all of
  them (every pair meets exactly ``C(A-2, n-2)`` times), otherwise the fewest lineups that keep the agents balanced
  and can cover every pair, chosen greedily (the pairs met least so far first; seeded tie-breaks), improved by
  swapping agents between lineups, the best of :data:`RESTARTS` tries, and lengthened by one balanced step until
  every pair meets;
- **neighbours**: the order round the table (which rotation keeps) is chosen lineup by lineup to spread who plays
  just after whom, among every cyclic order (or :data:`ORDER_SAMPLES` seeded ones at large tables).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

MAX_ALL_LINEUPS = 70
"""Up to this many possible lineups (``C(A, n)``: 6 agents at 4 seats make 15, 8 make 70) the schedule plays them
all."""

RESTARTS = 4
"""Greedy tries (each improved by swaps) per schedule length when not every lineup is played; the most even one is
kept."""

ORDER_SAMPLES = 120
"""Cyclic orders tried per lineup at tables where there are more (``(n - 1)! > 120``: 7 or more seats)."""


def schedule_lineups(num_agents: int, num_players: int, seed: int) -> list[tuple[int, ...]]:
    """The lineups (agent indices in seat order for rotation 0) of a league of ``num_agents`` at ``num_players``."""
    if num_players < 2 or num_agents < num_players:
        raise ValueError(f"a league at {num_players} seats needs at least {num_players} distinct agents, "
                         f"got {num_agents}")
    rng = np.random.default_rng([seed, num_agents, num_players])
    if math.comb(num_agents, num_players) <= MAX_ALL_LINEUPS:
        tables = list(itertools.combinations(range(num_agents), num_players))
    else:
        tables = _balanced_tables(num_agents, num_players, rng)
    return _seat_orders(tables, num_agents, rng)


def _balanced_tables(num_agents: int, n: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Sets of ``n`` agents, each agent in equally many, every pair at least once, pair counts as even as found."""
    step = num_agents // math.gcd(num_agents, n)  # lineups per step that seat every agent equally often
    needed = math.ceil(math.comb(num_agents, 2) / math.comb(n, 2))
    length = step * math.ceil(needed / step)
    while True:
        tries = [_swap_improve(_greedy_tables(num_agents, n, length, rng), num_agents, rng) for _ in range(RESTARTS)]
        best = min(tries, key=lambda t: (_repeats(t), _pair_spread(t, num_agents)))
        if _repeats(best) == 0 and _pair_spread(best, num_agents)[0] == 0:
            return best
        length += step


def _greedy_tables(num_agents: int, n: int, length: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    count = np.zeros(num_agents, dtype=np.int64)
    met = np.zeros((num_agents, num_agents), dtype=np.int64)
    tables = []
    for _ in range(length):
        chosen: list[int] = []
        for _ in range(n):
            free = np.setdiff1d(np.arange(num_agents), chosen)
            free = free[count[free] == count[free].min()]  # the least seated first: keeps the counts equal
            cost = met[np.ix_(free, chosen)].sum(axis=1) if chosen else np.zeros(len(free), dtype=np.int64)
            best = free[cost == cost.min()]
            chosen.append(int(rng.choice(best)))
        count[chosen] += 1
        for a, b in itertools.combinations(chosen, 2):
            met[a, b] += 1
            met[b, a] += 1
        tables.append(tuple(sorted(chosen)))
    return tables


def _swap_improve(tables: list[tuple[int, ...]], num_agents: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Swap agents between two lineups (which keeps every agent's count) while that leaves fewer pairs unmet or the
    meetings more even (a smaller sum of squares), until no swap helps."""
    sets = [set(t) for t in tables]
    met = pair_meetings(tables, num_agents).tolist()
    improved = True
    while improved:
        improved = False
        for t1, t2 in rng.permutation(list(itertools.combinations(range(len(sets)), 2))).tolist():
            only1, only2 = sets[t1] - sets[t2], sets[t2] - sets[t1]
            for a, b in itertools.product(sorted(only1), sorted(only2)):
                # a leaves t1 for t2 and b the other way: a loses and b gains the agents only in t1, and conversely
                mates1, mates2 = only1 - {a}, only2 - {b}
                ma, mb = met[a], met[b]
                squares = sum(mb[o] - ma[o] + 1 for o in mates1) + sum(ma[o] - mb[o] + 1 for o in mates2)
                unmet = (sum((ma[o] == 1) - (mb[o] == 0) for o in mates1)
                         + sum((mb[o] == 1) - (ma[o] == 0) for o in mates2))
                if (unmet, squares) < (0, 0):
                    for o in mates1:
                        ma[o] -= 1
                        mb[o] += 1
                        met[o][a] -= 1
                        met[o][b] += 1
                    for o in mates2:
                        mb[o] -= 1
                        ma[o] += 1
                        met[o][b] -= 1
                        met[o][a] += 1
                    sets[t1] = (sets[t1] - {a}) | {b}
                    sets[t2] = (sets[t2] - {b}) | {a}
                    improved = True
                    break
    return [tuple(sorted(t)) for t in sets]


def _repeats(tables: list[tuple[int, ...]]) -> int:
    """Lineups that repeat an earlier one (a schedule must not seat the same agents together twice)."""
    return len(tables) - len(set(tables))


def _pair_spread(tables: list[tuple[int, ...]], num_agents: int) -> tuple[int, int, int]:
    """(pairs that never meet, most minus fewest meetings, sum of squared meetings): lower is more even."""
    met = pair_meetings(tables, num_agents)[np.triu_indices(num_agents, 1)]
    return int((met == 0).sum()), int(met.max() - met.min()), int((met**2).sum())


def pair_meetings(lineups: list[tuple[int, ...]], num_agents: int) -> np.ndarray:
    """``(A, A)`` number of lineups in which agents ``a`` and ``b`` both sit (zero diagonal)."""
    met = np.zeros((num_agents, num_agents), dtype=np.int64)
    for lineup in lineups:
        for a, b in itertools.permutations(lineup, 2):
            met[a, b] += 1
    return met


def _seat_orders(tables: list[tuple[int, ...]], num_agents: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Each table's agents in the cyclic order that least repeats "``b`` plays just after ``a``" so far."""
    after = np.zeros((num_agents, num_agents), dtype=np.int64)
    lineups = []
    for table in tables:
        first, rest = table[0], list(table[1:])
        if math.factorial(len(rest)) <= ORDER_SAMPLES:
            orders = [(first, *p) for p in itertools.permutations(rest)]
            orders = [orders[i] for i in rng.permutation(len(orders))]
        else:
            orders = [(first, *rng.permutation(rest).tolist()) for _ in range(ORDER_SAMPLES)]
        costs = [sum(after[o[i], o[(i + 1) % len(o)]] for i in range(len(o))) for o in orders]
        order = tuple(int(a) for a in orders[int(np.argmin(costs))])
        for i, a in enumerate(order):
            after[a, order[(i + 1) % len(order)]] += 1
        lineups.append(order)
    return lineups
