"""examples/ppo_selfplay.py, the one-file PPO: each seat is credited its own chips and GAE follows its own chain
(across rollouts too), it trains in every game and mode and saves a model file that ``ppo:PATH`` loads and that
plays legal moves, and a short run beats the policy it started from against random players by a measured margin."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import torch
import tyro

from agents.registry import make_agent
from envs.registry import make_game
from training.actor_critic import new_policy

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def torch_threads() -> Iterator[None]:
    """The script sets torch's thread count (``--threads``); give the test worker its own back afterwards."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def example() -> ModuleType:
    """The script as a module (imported once, as ``python examples/ppo_selfplay.py`` would run it, without main)."""
    name = "examples_ppo_selfplay"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "ppo_selfplay.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look the module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[name]


class Tally:
    """Wraps a game's ``step`` and ``redeal`` to count, independently of the example, each seat's chips from its
    first decision of an episode to the end of it: per (table, episode number, seat), and in all."""

    def __init__(self, game, tables: int) -> None:
        self.decided = np.zeros((tables, game.num_players), bool)
        self.episode = np.zeros(tables, np.int64)
        self.chips: dict[tuple[int, int, int], float] = {}
        self.total = 0.0
        step, redeal = game.step, game.redeal

        def counted_step(state, actions, tables=None):
            self.decided[np.arange(state.batch_size), state.current_player] = True
            out = step(state, actions, tables)
            gained = np.where(self.decided, state.rewards, 0.0)
            self.total += float(gained.sum())
            for b, s in zip(*np.nonzero(gained), strict=True):
                key = (int(b), int(self.episode[b]), int(s))
                self.chips[key] = self.chips.get(key, 0.0) + float(gained[b, s])
            return out

        def counted_redeal(state, tables, seeds=None):
            self.decided[tables] = False
            self.episode[tables] += 1
            return redeal(state, tables, seeds)

        game.step, game.redeal = counted_step, counted_redeal


@pytest.mark.parametrize("game_name", ["tripoli", "triolet", "flipflop"])
def test_every_chip_after_a_decision_is_credited_once_across_rollouts(game_name: str):
    """Over five short rollouts with carrying, the rewards of the decisions that got an advantage plus those still
    open add up to the chips every seat won or lost after its first decision of each episode: none lost at a
    rollout's end, none counted twice."""
    ex = example()
    game = make_game(game_name, num_players=4)
    args = ex.Args(game=game_name, num_tables=8, num_steps=20, seed=3)
    tables = ex.SelfPlay(game, args, scale=1.0)
    tally = Tally(game, args.num_tables)
    policy = new_policy(game, 16, (8,), seed=0)
    buf = ex.Rollout(4, args.num_steps, args.num_tables, game.observation_size, game.num_actions)
    credited = 0.0
    for _ in range(5):
        for step in range(args.num_steps):
            tables.step(policy, buf, 4 + step)
        _, known = ex.seat_gae(buf, 1.0, 0.95)
        credited += float(buf.reward[known].sum())
        buf.carry()
    still_open = float(buf.reward[:4][buf.present[:4]].sum())
    assert tally.total != 0.0
    assert credited + still_open == pytest.approx(tally.total, abs=1e-3)


def test_a_seats_return_is_its_own_chips_to_the_end_of_the_episode():
    """With gamma = lambda = 1, the return (advantage + value) of a seat's first decision of an episode played
    within one rollout is that seat's chips from then to the end; another seat's chips would not fit."""
    ex = example()
    game = make_game("tripoli", num_players=4)
    args = ex.Args(num_tables=8, num_steps=120, seed=5)
    tables = ex.SelfPlay(game, args, scale=1.0)
    tally = Tally(game, args.num_tables)
    policy = new_policy(game, 16, (8,), seed=0)
    buf = ex.Rollout(4, args.num_steps, args.num_tables, game.observation_size, game.num_actions)
    episode = np.zeros((4 + args.num_steps, args.num_tables), np.int64)
    for step in range(args.num_steps):
        episode[4 + step] = tally.episode
        tables.step(policy, buf, 4 + step)
    adv, known = ex.seat_gae(buf, 1.0, 1.0)
    returns = adv + buf.value
    checked = 0
    for b in range(args.num_tables):
        for e in range(int(tally.episode[b])):  # the episodes that ended within the rollout
            for s in range(4):
                rows = np.flatnonzero((episode[:, b] == e) & (buf.seat[:, b] == s) & buf.present[:, b])
                rows = rows[rows >= 4]
                if rows.size:
                    assert known[rows, b].all()
                    assert returns[rows[0], b] == pytest.approx(tally.chips.get((b, e, s), 0.0), abs=1e-3)
                    checked += 1
    assert checked >= 50
    assert any(abs(v) > 0 for v in tally.chips.values())


def test_arguments_come_from_the_dataclass():
    ex = example()
    args = tyro.cli(ex.Args, args=["--game", "flipflop", "--opponents", "random,heuristic", "--net-arch", "64", "32",
                                   "--minutes", "0.5"])
    assert (args.game, args.opponents, args.net_arch, args.minutes, args.seed) == (
        "flipflop", "random,heuristic", (64, 32), 0.5, 1)


def plays_legal_moves(path: Path, game_name: str) -> None:
    """The model loads through the project's loader (``ppo:PATH``) and its moves are legal on 64 tables, step after
    step, whichever seat acts."""
    game = make_game(game_name, num_players=4)
    agent = make_agent(f"ppo:{path}", game)
    state = game.init(11, batch_size=64)
    rng = np.random.default_rng(0)
    for _ in range(30):
        live = np.flatnonzero(~state.done)
        if not live.size:
            break
        sub = state.take(live)
        actions = np.asarray(agent.act(game.observe(sub, sub.current_player), sub.legal_action_mask, rng))
        assert sub.legal_action_mask[np.arange(live.size), actions].all()
        game.step(state, actions, tables=live)


@pytest.mark.parametrize(("game_name", "opponents"), [("tripoli", "random,heuristic"), ("triolet", ""),
                                                      ("flipflop", "heuristic")])
def test_trains_and_saves_a_model_file_in_every_game(tmp_path: Path, game_name: str, opponents: str):
    ex = example()
    args = ex.Args(game=game_name, opponents=opponents, total_decisions=2 * 32 * 8, num_tables=32, num_steps=8,
                   features_dim=32, net_arch=(16,), eval_deals=0, out=str(tmp_path))
    result = ex.main(args)
    assert result["decisions"] == 512 and result["path"] == tmp_path / "model.zip"
    plays_legal_moves(result["path"], game_name)


def test_a_short_self_play_run_beats_its_initial_policy_against_random(tmp_path: Path):
    """About 25,000 decisions of self-play in Tripoli (four updates, a few seconds): against three random players
    on 1,200 duplicate deals the model makes more chips than the policy it started from in the same seats of the
    same deals, the whole 95% interval of the paired difference above 0. Measured: +26.9 ± 2.8 chips a deal with
    this seed, from +5.4 ± 3.0 to +26.9 ± 2.8 over seeds 0-5; with the advantages' sign flipped, -2.2 ± 1.6."""
    ex = example()
    args = ex.Args(total_decisions=4 * 256 * 24, num_steps=24, eval_deals=1200, out=str(tmp_path), seed=2)
    result = ex.main(args)
    assert result["gain"] - result["gain_ci95"] > 0, result
    assert result["model"] > 0, result  # it wins chips from the random players, not only loses fewer
