"""Hint features (agents/hints.py): computed from the observation alone, equal to what the heuristics bet and drop
by, fed to the policy's input layer, recorded in model files, and refused for a game without any."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO

from agents.flipflop_heuristic import FlipFlopHeuristic, drop_hints, table_hints
from agents.hints import GAME_HINTS, HINTS
from agents.ppo import PPOAgent, SymlogFeatures, load_policy, save_model
from agents.random_agent import RandomAgent
from agents.tripoli_heuristic import betting_hints, win_chance
from envs.core import poker
from envs.core.cards import parse_card
from envs.core.game import sample_legal
from envs.flipflop import observation as FV
from envs.registry import make_game
from envs.tripoli.observation import OFFSETS, SCALARS
from training.sb3_vec_env import CardVecEnv
from training.train import policy_shape
from training.train_config import TrainConfig

GAME = make_game("tripoli", 4)
FLIPFLOP = make_game("flipflop", 4)


def _observations(seed: int, moves: int, tables: int = 64, game=GAME) -> np.ndarray:
    """Observations of the players to act after ``moves`` random moves at ``tables`` tables of ``game``."""
    state, rng = game.init(seed, batch_size=tables), np.random.default_rng(seed)
    for _ in range(moves):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    return game.observe(state, np.maximum(state.current_player, 0))


def test_hints_of_a_hand_computed_by_hand() -> None:
    obs = np.zeros((1, GAME.observation_size), np.float32)
    hand = [parse_card(c) for c in "As Ks Qs Js Ts 2c 3d 4h".split()]  # a royal flush among eight cards
    obs[0, OFFSETS["hand"][0] + np.asarray(hand)] = 1
    obs[0, OFFSETS["seat_present"][0] : OFFSETS["seat_present"][0] + 3] = 1  # me and two opponents
    obs[0, OFFSETS["layout"][0] + 8] = 30  # the pot
    obs[0, OFFSETS["scalars"][0] + SCALARS.index("to_call")] = 10
    p, equity, odds, edge = betting_hints(obs)[0]
    mask = np.bitwise_or.reduce(np.uint64(1) << np.asarray(hand, np.uint64))
    assert p == pytest.approx(win_chance(poker.mask_rank(np.array([mask])), np.array([8]))[0])
    assert p > 0.99 and equity == pytest.approx(p**2)
    assert odds == pytest.approx(10 / 40) and edge == pytest.approx(equity - 0.25)


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 40))
def test_hints_are_probabilities_and_their_difference(seed: int, moves: int) -> None:
    hints = betting_hints(_observations(seed, moves))
    p, equity, odds, edge = hints.T
    assert hints.dtype == np.float32 and np.isfinite(hints).all()
    assert ((0 <= p) & (p <= 1) & (0 <= equity) & (equity <= p + 1e-6) & (0 <= odds) & (odds < 1)).all()
    np.testing.assert_allclose(edge, equity - odds, atol=1e-6)


def test_the_input_layer_appends_the_hints_to_the_scaled_observation() -> None:
    space = spaces.Box(-np.inf, np.inf, shape=(GAME.observation_size,), dtype=np.float32)
    layer = SymlogFeatures(space, 8, hints="tripoli-betting")
    assert layer.linear.in_features == GAME.observation_size + HINTS["tripoli-betting"][1]
    obs = _observations(1, 12)
    x = np.concatenate([np.sign(obs) * np.log1p(np.abs(obs)), betting_hints(obs)], axis=1)
    expected = np.maximum(x @ layer.linear.weight.detach().numpy().T + layer.linear.bias.detach().numpy(), 0)
    np.testing.assert_allclose(layer(th.as_tensor(obs)).detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="unknown hints 'nope'"):
        SymlogFeatures(space, 8, hints="nope")


def test_a_model_with_hints_saves_loads_and_plays_the_same(tmp_path) -> None:
    env = CardVecEnv(GAME, 2, RandomAgent(GAME), seed=0)
    cfg = TrainConfig(hints=True, features_dim=16, net_arch=(8,))
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=16, n_epochs=1, seed=3, device="cpu",
                        policy_kwargs=policy_shape(cfg))
    model.learn(16)
    path = save_model(model, tmp_path / "model.zip", GAME)
    loaded = load_policy(path, GAME)
    assert loaded.features_extractor_kwargs == {"features_dim": 16, "hints": "tripoli-betting"}
    obs = _observations(2, 8)
    np.testing.assert_allclose(PPOAgent(GAME, policy=loaded).logits(obs),
                               PPOAgent.snapshot(GAME, model.policy).logits(obs), rtol=1e-5, atol=1e-6)


def test_a_game_without_hints_is_refused() -> None:
    games_without = [g for g in ("triolet", "flipflop") if g not in GAME_HINTS]
    for game in games_without:
        with pytest.raises(ValueError, match=f"the game {game} has no hint features"):
            policy_shape(TrainConfig(game=game, hints=True))
    assert policy_shape(TrainConfig(hints=False))["features_extractor_kwargs"] == {"features_dim": 256}


def test_flipflop_drop_hints_of_a_position_computed_by_hand() -> None:
    obs = np.zeros((1, FLIPFLOP.observation_size), np.float32)

    def put(plane: int, card: str) -> None:
        obs[0, 52 * plane + parse_card(card)] = 1

    def seat(field: str, j: int, value: float) -> None:
        obs[0, FV.SEATS_OFFSET + FV.SEAT_FIELDS.index(field) * FV.MAX_SEATS + j] = value

    put(FV.HAND, "2c"), put(FV.HAND, "3d")  # my total: 5
    put(FV.PILE, "Ah")  # seen: 1 point
    put(FV.KNOWN_IN + 1, "Ks")  # seat 1 holds the king of spades and 4 unseen cards
    for j, (in_deal, size) in enumerate([(1, 2), (1, 5), (1, 2), (0, 0)]):
        seat("present", j, 1), seat("in_deal", j, in_deal), seat("hand_size", j, size)
    obs[0, FV.TABLE_OFFSET + FV.TABLE_FIELDS.index("stock_size")] = 30
    # 340 points in the deck, 16 seen (2 + 3 + 1 + 10): the 48 unseen cards average 6.75. Seat 1: 10 + 4 × 6.75 = 37;
    # seat 2: 2 × 6.75 = 13.5, the lowest, 8.5 points above me, 8.5 / (6.75 √2) = 0.890 deviations of its unknown cards.
    total, lowest, lead, stock, fewest, mean = drop_hints(obs)[0]
    assert total == pytest.approx(5 / 50) and lowest == pytest.approx(13.5 / 50)
    assert lead == pytest.approx(8.5 / (6.75 * np.sqrt(2)) / 5, rel=1e-5)
    assert stock == pytest.approx(30 / 52) and fewest == pytest.approx(2 / 6) and mean == pytest.approx(0.675)
    seat("in_deal", 1, 0), seat("in_deal", 2, 0)  # nobody left to race: the opponent numbers are 0
    assert drop_hints(obs)[0, [1, 2, 4]].tolist() == [0, 0, 0]


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 60))
def test_flipflop_hints_are_bounded_and_the_heuristic_drops_only_when_ahead(seed: int, moves: int) -> None:
    obs = _observations(seed, moves, game=FLIPFLOP)
    hints = drop_hints(obs)
    assert hints.dtype == np.float32 and np.isfinite(hints).all()
    total, lowest, lead, stock, fewest, mean = hints.T
    assert ((0 <= total) & (total <= 1.2) & (-1 <= lead) & (lead <= 1) & (0 <= stock) & (stock <= 1)).all()
    assert ((0 <= fewest) & (fewest <= 1) & (0 <= mean) & (mean <= 1)).all()
    heuristic = FlipFlopHeuristic(FLIPFLOP)
    drops = heuristic.should_drop(obs) & (np.rint(total * 50) > heuristic.drop_at)
    assert (lead[drops] > 0).all()  # it drops on a total below the lowest estimate less a margin


def test_flipflop_table_hints_of_a_position_computed_by_hand() -> None:
    obs = np.zeros((1, FLIPFLOP.observation_size), np.float32)

    def put(plane: int, card: str) -> None:
        obs[0, 52 * plane + parse_card(card)] = 1

    assert table_hints(obs)[0, 6:].tolist() == [0, 0, 0, 0]  # nothing discarded yet
    put(FV.PILE, "Kh"), put(FV.PILE, "9c"), put(FV.PILE, "Ad")  # in the pile: 10 + 9 + 1
    put(FV.TAKEN_BY + 0, "8s")  # I took an 8 from the pile
    put(FV.TAKEN_BY + 2, "Qd"), put(FV.TAKEN_BY + 2, "3h"), put(FV.TAKEN_BY + 1, "5c")  # the others took 10, 3, 5
    # 7 cards discarded so far, 10 + 9 + 1 + 8 + 10 + 3 + 5 = 46 points: a mean of 46 / 7; 3 taken by the others, the
    # queen the highest of them
    hints = table_hints(obs)[0]
    np.testing.assert_allclose(hints[:6], drop_hints(obs)[0])
    np.testing.assert_allclose(hints[6:], [46 / 7 / 10, 7 / 20, 3 / 5, 1.0], rtol=1e-6)
    assert table_hints(obs).dtype == np.float32


def test_flipflop_policies_take_the_table_hints_and_older_models_keep_the_drop_hints() -> None:
    assert GAME_HINTS["flipflop"] == "flipflop-table"
    kwargs = policy_shape(TrainConfig(game="flipflop", hints=True))["features_extractor_kwargs"]
    assert kwargs == {"features_dim": 256, "hints": "flipflop-table"}
    space = spaces.Box(-np.inf, np.inf, shape=(FLIPFLOP.observation_size,), dtype=np.float32)
    assert SymlogFeatures(space, 8, hints="flipflop-table").linear.in_features == FLIPFLOP.observation_size + 10
    layer = SymlogFeatures(space, 8, hints="flipflop-drop")
    assert layer.linear.in_features == FLIPFLOP.observation_size + 6
