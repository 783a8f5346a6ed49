"""How soon a player could read the table: one public fact per deal that tells a field apart, and how many deals of
a sitting at one table a reader needs to tell it from each other field.

    python -m benchmarks.table_signal [--games tripoli,flipflop] [--deals 2000] [--seed 5] [--commit]

The trained agents remember nothing of earlier deals, and the fields they lose or tie at are tables a card player
reads over a few deals (docs/training.md, "What is not there yet"): Tripoli's calling station, which calls the bets
that cost there, and Flip Flop's patient and hoarder tables, which drop late. This measures whether what every
player at the table sees would tell those tables apart, before any agent is built to read it.

For each game, the game's best hand-written bot (:data:`agents.search.ROLLOUT`) sits at seat 0 of tables whose other
seats are ``players - 1`` copies of one field (:func:`agents.heldout.every_field`: random, the zoo, the held-out
styles), and a watcher of the batched core (:class:`training.evaluate.StepWatch`) keeps one public ratio per deal
(:data:`SIGNALS`): a numerator and a denominator, summed over the deals of a sitting.

- Tripoli: the other seats' folds per bet they faced (a deal where nobody faced a bet adds nothing);
- Flip Flop: turns per deal.

For each target field (:data:`TARGETS`) and every field but the targets, the *accuracy* after K deals is how often
a reader who knows both fields' ratios tells which of the two it sits with from the sitting's ratio (the threshold
halfway between them; a sitting with no denominator yet is a coin toss): K deals drawn with replacement from each
field's deals, :data:`DRAWS` sittings each; ``hardest`` names the field the target is hardest to tell from after
the longest sitting. One ratio is a lower bound on what a reader keeping several could tell. It reads no hidden card
and uses no agent's observation: the facts are the actions and the deal's length, which every seat sees.

Written to ``table_signal.json`` in ``runs/benchmarks/`` (``--commit``: ``benchmarks/results/``).
"""

from __future__ import annotations

import platform
import time
from typing import Any

import numpy as np

from agents.heldout import every_field
from agents.registry import make_agent
from agents.search import ROLLOUT
from benchmarks import results_dir, write_result
from benchmarks.arguments import add_commit, add_games, add_players, add_seed, benchmark_parser, checked_games
from envs.core.game import BatchedGame, BatchState, action_kind
from envs.registry import make_game
from training.cli_args import count
from training.evaluate import group_seeds, play_tables

TARGETS = {"tripoli": ("station",), "flipflop": ("patient", "hoarder")}
"""The fields each game's trained agent loses or ties at, whose tables a reader would have to recognise."""
SIGNALS = {"tripoli": "the other seats' folds per bet they faced", "flipflop": "turns per deal"}
"""What each game's per-deal ratio counts."""
SITTINGS = (1, 2, 4, 8, 16)
"""Deals per sitting the accuracy is reported for."""
DRAWS = 2000
"""Sittings drawn per field and sitting length."""
DEFAULT_DEALS = 2000
DEFAULT_SEED = 5


class _Watch:
    """Sums each table's numerator and denominator of the game's signal (:data:`SIGNALS`) over its deal."""

    def __init__(self, game: BatchedGame, tables: int):
        self.game = game
        kinds = np.array([action_kind(name) for name in game.action_names()])
        self.fold = kinds == "fold"
        self.call = kinds == "call"
        self.num = np.zeros(tables)
        self.den = np.zeros(tables)

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        pass

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        if self.game.name != "tripoli":
            return
        mask = state.legal_action_mask
        facing = mask[:, self.call].any(1) & mask[:, self.fold].any(1) & (state.current_player != 0) & ~state.done
        np.add.at(self.den, rows[facing], 1.0)
        np.add.at(self.num, rows[facing & self.fold[actions]], 1.0)

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        if self.game.name == "flipflop":
            self.num[rows] = state.turn_no
            self.den[rows] = 1.0


def deal_signals(game: BatchedGame, field_spec: str, deals: int, seed: int) -> np.ndarray:
    """``(deals, 2)``: each deal's numerator and denominator, the reference bot at seat 0 and ``field_spec`` at the
    others."""
    agents = [make_agent(ROLLOUT[game.name], game), make_agent(field_spec, game)]
    seat_agent = np.ones((deals, game.num_players), np.int64)
    seat_agent[:, 0] = 0
    watch = _Watch(game, deals)
    play_tables(game, agents, seat_agent, group_seeds(seed, deals), np.random.default_rng(seed), watch=watch)
    return np.stack([watch.num, watch.den], axis=1)


def sitting_accuracy(a: np.ndarray, b: np.ndarray, k: int, rng: np.random.Generator, draws: int = DRAWS) -> float:
    """How often a sitting of ``k`` deals is told to be field ``a``'s or ``b``'s rightly, from its summed ratio
    (``a`` and ``b``: ``(deals, 2)`` numerators and denominators), the threshold halfway between the fields' own
    ratios; a sitting whose denominator is 0 counts half."""
    ratio_a, ratio_b = a[:, 0].sum() / max(a[:, 1].sum(), 1e-12), b[:, 0].sum() / max(b[:, 1].sum(), 1e-12)
    if ratio_a == ratio_b:
        return 0.5
    threshold, a_above = (ratio_a + ratio_b) / 2, ratio_a > ratio_b
    right = 0.0
    for deals, is_a in ((a, True), (b, False)):
        drawn = deals[rng.integers(len(deals), size=(draws, k))].sum(axis=1)
        known = drawn[:, 1] > 0
        ratio = np.divide(drawn[:, 0], drawn[:, 1], out=np.zeros(draws), where=known)
        says_a = (ratio > threshold) == a_above
        right += (np.where(known, says_a == is_a, 0.5)).mean() / 2
    return float(right)


def measure(game_name: str, deals: int, seed: int, players: int) -> dict[str, Any]:
    """Every field's per-deal signal and, for each target field, the accuracy against every other field."""
    game = make_game(game_name, num_players=players)
    start = time.perf_counter()
    signals = {field: deal_signals(game, spec, deals, seed) for field, spec in every_field(game_name).items()}
    rng = np.random.default_rng(seed)
    targets = {}
    for target in TARGETS[game_name]:
        against = {field: {str(k): round(sitting_accuracy(signals[target], s, k, rng), 3) for k in SITTINGS}
                   for field, s in signals.items() if field not in TARGETS[game_name]}
        hardest = min(against, key=lambda field: against[field][str(SITTINGS[-1])])
        targets[target] = {"against": against, "hardest": hardest}
    return {
        "signal": SIGNALS[game_name], "reader": ROLLOUT[game_name], "players": players, "deals": deals, "seed": seed,
        "fields": {field: {"ratio": round(float(s[:, 0].sum() / max(s[:, 1].sum(), 1e-12)), 4),
                           "deals_with_signal": round(float((s[:, 1] > 0).mean()), 4)}
                   for field, s in signals.items()},
        "targets": targets, "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = benchmark_parser("table_signal", __doc__)
    add_games(ap, list(TARGETS), "the games with a table signal")
    ap.add_argument("--deals", type=count(1_000_000), default=DEFAULT_DEALS,
                    help=f"deals per field (default {DEFAULT_DEALS:,})")
    add_seed(ap, DEFAULT_SEED, "deal seed")
    add_players(ap)
    add_commit(ap)
    args = ap.parse_args(argv)
    checked_games(ap, args.games, args.players)
    result: dict[str, Any] = {"machine": platform.machine(), "python": platform.python_version(), "games": {}}
    for game_name in args.games:
        measured = measure(game_name, args.deals, args.seed, args.players)
        result["games"][game_name] = measured
        print(f"{game_name}, {measured['signal']}: "
              + ", ".join(f"{field} {row['ratio']:.3f}" for field, row in measured["fields"].items()), flush=True)
        for target, told in measured["targets"].items():
            for field, acc in told["against"].items():
                print(f"  {target} told from {field} after " + ", ".join(f"{k} deals {v:.2f}" for k, v in acc.items())
                      + ("  (the hardest)" if field == told["hardest"] else ""), flush=True)
    write_result(result, results_dir(args.commit) / "table_signal.json")
    return result


if __name__ == "__main__":
    main()
