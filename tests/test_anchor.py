"""Anchored policies (agents/anchor.py): the heuristic's action gets a fixed logit bonus, PPO learns a residual; with a
silent network the policy plays exactly the heuristic in every game; model files record the anchor and refuse a bad
one; imitation leaves the actor alone; engines and settings that cannot use an anchor refuse it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch as th
from sb3_contrib import MaskablePPO

from agents.anchor import AnchoredPolicy
from agents.model_file import METADATA_NAME
from agents.ppo import ModelFileError, PPOAgent, load_model, load_policy, save_model
from agents.random_agent import RandomAgent
from agents.registry import anchor_names, make_agent
from envs.core.game import sample_legal
from envs.registry import GAMES, make_game
from training.imitation import imitate
from training.rllib_train import train_rllib
from training.sb3_vec_env import CardVecEnv
from training.train import policy_shape
from training.train_config import TrainConfig


def decisions(game, seed: int, moves: int, tables: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of the acting seats after ``moves`` random moves."""
    state, rng = game.init(seed, batch_size=tables), np.random.default_rng(seed)
    for _ in range(moves):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    live = np.flatnonzero(~state.done)
    sub = state.take(live)
    return game.observe(sub, sub.current_player), sub.legal_action_mask.copy()


def anchored_model(game, weight: float = 3.0, silent: bool = True, kinds: dict[str, float] | None = None,
                   anchor: str = "heuristic") -> MaskablePPO:
    env = CardVecEnv(game, 2, RandomAgent(game), seed=0)
    cfg = TrainConfig(game=game.name, anchor=anchor, anchor_weight=weight, features_dim=16, net_arch=(8,),
                      anchor_kind_weights=kinds or {})
    model = MaskablePPO(AnchoredPolicy, env, n_steps=8, batch_size=16, n_epochs=1, seed=3, device="cpu",
                        policy_kwargs=policy_shape(cfg))
    model.policy.attach(game)
    if silent:  # a network whose logits are all zero: the policy is the anchor's bonus alone
        with th.no_grad():
            model.policy.action_net.weight.zero_()
            model.policy.action_net.bias.zero_()
    return model


@pytest.mark.parametrize(("name", "anchor"), [(g, a) for g in GAMES for a in anchor_names(g)])
def test_a_silent_network_plays_exactly_its_anchor(name: str, anchor: str) -> None:
    """Every game's heuristic, and Flip Flop's reader."""
    game = make_game(name, 4)
    bot = make_agent(anchor, game)
    agent = PPOAgent(game, policy=anchored_model(game, anchor=anchor).policy)
    for seed, moves in ((1, 0), (2, 5), (3, 12)):
        obs, mask = decisions(game, seed, moves)
        assert len(obs) > 0
        rng = np.random.default_rng(0)
        np.testing.assert_array_equal(agent.act(obs, mask, rng), bot.act(obs, mask, rng))


def test_the_model_file_records_another_anchor_and_plays_it(tmp_path: Path) -> None:
    game = make_game("flipflop", 4)
    model = anchored_model(game, anchor="reader")
    path = save_model(model, tmp_path / "model.zip", game)
    with zipfile.ZipFile(path) as z:
        content = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(content[METADATA_NAME])
    reader = make_agent("reader", game)
    assert (meta["policy"]["anchor"], meta["policy"]["anchor_version"]) == ("reader", reader.version)
    del meta["policy"]["anchor_version"]  # a file from before versions were recorded: loaded, not checked
    content[METADATA_NAME] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in content.items():
            z.writestr(name, data)
    loaded = PPOAgent(game, path)
    obs, mask = decisions(game, 4, 30)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(loaded.act(obs, mask, rng), reader.act(obs, mask, rng))


def test_the_anchor_action_has_the_bonus_probability_among_the_legal_actions() -> None:
    game = make_game("tripoli", 4)
    model = anchored_model(game, weight=2.0)
    obs, mask = decisions(game, 4, 10)
    chosen = make_agent("heuristic", game).act(obs, mask, np.random.default_rng(0))
    dist = model.policy.get_distribution(th.as_tensor(obs), mask)
    probs = dist.distribution.probs.detach().numpy()
    k = mask.sum(axis=1)
    np.testing.assert_allclose(probs[np.arange(len(chosen)), chosen], np.e**2 / (np.e**2 + k - 1), rtol=1e-5)
    assert (probs[~mask] == 0).all()
    # PPO's training path (evaluate_actions) sees the same distribution as the rollout (forward)
    _, log_prob, _ = model.policy.evaluate_actions(th.as_tensor(obs), th.as_tensor(chosen), th.as_tensor(mask))
    np.testing.assert_allclose(log_prob.detach().numpy(), np.log(probs[np.arange(len(chosen)), chosen]), rtol=1e-5)


def test_an_action_kind_can_have_its_own_bonus() -> None:
    """Flip Flop with the draws and the drop at 1.5 and the rest at 4: where the heuristic draws or drops, its action
    has probability e^1.5 / (e^1.5 + k - 1) among k legal actions; where it lays or discards, e^4 / (e^4 + k - 1)."""
    game = make_game("flipflop", 4)
    kinds = {"drop": 1.5, "draw stock": 1.5, "draw discard": 1.5}
    model = anchored_model(game, weight=4.0, kinds=kinds)
    obs = np.concatenate([decisions(game, seed, moves)[0] for seed, moves in ((7, 0), (8, 1), (9, 6), (10, 11))])
    mask = np.concatenate([decisions(game, seed, moves)[1] for seed, moves in ((7, 0), (8, 1), (9, 6), (10, 11))])
    chosen = make_agent("heuristic", game).act(obs, mask, np.random.default_rng(0))
    names = game.action_names()
    is_draw = np.array([names[a].startswith(("draw", "drop")) for a in chosen])
    assert is_draw.any() and (~is_draw).any()
    weight = np.where(is_draw, 1.5, 4.0)
    k = mask.sum(axis=1)
    probs = model.policy.get_distribution(th.as_tensor(obs), mask).distribution.probs.detach().numpy()
    np.testing.assert_allclose(probs[np.arange(len(chosen)), chosen], np.exp(weight) / (np.exp(weight) + k - 1),
                               rtol=1e-5)
    agent = PPOAgent(game, policy=model.policy)  # deterministic: still exactly the heuristic with a silent network
    np.testing.assert_array_equal(agent.act(obs, mask, np.random.default_rng(0)), chosen)


def test_an_anchored_policy_refuses_to_act_without_masks_or_its_game() -> None:
    game = make_game("tripoli", 4)
    model = anchored_model(game)
    obs, _ = decisions(game, 5, 3)
    with pytest.raises(ValueError, match="needs the legal-action masks"):
        PPOAgent(game, policy=model.policy).logits(obs)
    loose = AnchoredPolicy(**model.policy._get_constructor_parameters())  # never attached to a game
    with pytest.raises(RuntimeError, match="attached to its game"):
        loose.get_distribution(th.as_tensor(obs), np.ones((len(obs), game.num_actions), bool))


def test_the_model_file_records_the_anchor_and_plays_the_same(tmp_path: Path) -> None:
    game = make_game("tripoli", 4)
    model = anchored_model(game, weight=2.5, silent=False)
    model.learn(16)
    path = save_model(model, tmp_path / "model.zip", game)
    with zipfile.ZipFile(path) as z:
        policy = json.loads(z.read(METADATA_NAME))["policy"]
    assert (policy["class"], policy["anchor"], policy["anchor_weight"]) == ("AnchoredPolicy", "heuristic", 2.5)
    loaded = load_policy(path, game)
    assert isinstance(loaded, AnchoredPolicy) and loaded.anchor_weight == 2.5 and loaded.anchor_kind_weights == {}
    obs, mask = decisions(game, 6, 12)
    np.testing.assert_allclose(PPOAgent(game, policy=loaded).logits(obs, mask),
                               PPOAgent.snapshot(game, model.policy).logits(obs, mask), rtol=1e-5, atol=1e-6)
    resumed = load_model(path, game, CardVecEnv(game, 2, RandomAgent(game), seed=1))
    resumed.learn(16)  # a resumed anchored model trains (its anchor attached)


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("anchor", "random", "unknown anchor 'random'"),
    ("anchor", None, "unknown anchor None"),
    ("anchor", "reader", "tripoli has no anchor 'reader' (its anchors: heuristic)"),
    ("anchor_version", 99, "the policy was trained on anchor heuristic v99, and this cardgym's heuristic is v"),
    ("anchor_version", 0, "policy.anchor_version must be a positive integer, got 0"),
    ("anchor_version", "2", "policy.anchor_version must be a positive integer, got '2'"),
    ("anchor_weight", 0, "anchor_weight must be a positive finite number, got 0"),
    ("anchor_weight", "3", "anchor_weight must be a positive finite number, got '3'"),
    ("anchor_weight", True, "anchor_weight must be a positive finite number, got True"),
    ("anchor_kind_weights", {"bet": 0}, "anchor_kind_weights['bet'] must be a positive finite number, got 0"),
    ("anchor_kind_weights", {"bet": "2"}, "anchor_kind_weights['bet'] must be a positive finite number, got '2'"),
    ("anchor_kind_weights", [1], "anchor_kind_weights must map action kinds to weights, got [1]"),
    ("anchor_kind_weights", {"draw stock": 1.0}, "no tripoli action is of kind 'draw stock' (its kinds: "),
])
def test_a_bad_anchor_in_a_model_file_is_refused_in_one_line(tmp_path: Path, key: str, value, fragment: str) -> None:
    game = make_game("tripoli", 4)
    path = save_model(anchored_model(game), tmp_path / "model.zip", game)
    with zipfile.ZipFile(path) as z:
        content = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(content[METADATA_NAME])
    meta["policy"][key] = value
    content[METADATA_NAME] = json.dumps(meta).encode()
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as z:
        for name, data in content.items():
            z.writestr(name, data)
    with pytest.raises(ModelFileError) as info:
        PPOAgent(game, bad)
    assert "\n" not in str(info.value) and fragment in str(info.value)


def test_the_model_file_records_the_kind_bonuses(tmp_path: Path) -> None:
    game = make_game("tripoli", 4)
    model = anchored_model(game, weight=3.0, silent=False, kinds={"fold": 1.0, "bet": 2.0})
    path = save_model(model, tmp_path / "model.zip", game)
    with zipfile.ZipFile(path) as z:
        assert json.loads(z.read(METADATA_NAME))["policy"]["anchor_kind_weights"] == {"fold": 1.0, "bet": 2.0}
    loaded = load_policy(path, game)
    assert loaded.anchor_kind_weights == {"fold": 1.0, "bet": 2.0}
    obs, mask = decisions(game, 6, 12)
    np.testing.assert_allclose(PPOAgent(game, policy=loaded).logits(obs, mask),
                               PPOAgent.snapshot(game, model.policy).logits(obs, mask), rtol=1e-5, atol=1e-6)


def test_imitation_fits_only_the_critic_of_an_anchored_policy() -> None:
    game = make_game("tripoli", 4)
    model = anchored_model(game, silent=False)
    before = {k: v.clone() for k, v in model.policy.action_net.state_dict().items()}
    value_before = model.policy.value_net.weight.clone()
    stats = imitate(model.policy, game, make_agent("heuristic", game), 200, seed=1, reward_scale=0.1, tables=8,
                    epochs=1)
    for k, v in model.policy.action_net.state_dict().items():
        assert th.equal(v, before[k]), k
    assert not th.equal(model.policy.value_net.weight, value_before)
    assert stats["accuracy"] > 0.9  # the anchored policy already plays its anchor's actions


def test_settings_that_cannot_anchor_are_refused() -> None:
    with pytest.raises(ValueError, match="anchor must be"):
        TrainConfig(anchor="random")
    with pytest.raises(ValueError, match="anchor must be \"\" or one of heuristic for tripoli, got 'reader'"):
        TrainConfig(game="tripoli", anchor="reader")
    assert TrainConfig(game="flipflop", anchor="reader").anchor == "reader"
    for weight in (0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="anchor_weight must be a positive finite number"):
            TrainConfig(anchor="heuristic", anchor_weight=weight)
    for kinds, message in (({"drop": 0}, r"anchor_kind_weights\['drop'\] must be a positive finite number"),
                           ({"drop": float("nan")}, "must be a positive finite number"),
                           ({"": 1.0}, "must map action kinds"), ({3: 1.0}, "must map action kinds")):
        with pytest.raises(ValueError, match=message):
            TrainConfig(anchor="heuristic", anchor_kind_weights=kinds)
    with pytest.raises(ValueError, match="anchor_kind_weights needs an anchor"):
        TrainConfig(anchor_kind_weights={"drop": 1.0})
    with pytest.raises(ValueError, match="engine sb3 only"):
        train_rllib(TrainConfig(engine="rllib", anchor="heuristic"))


def test_anchor_weights_take_numpy_numbers_and_refuse_bools() -> None:
    from agents.registry import check_anchor_weights

    check_anchor_weights(np.float32(4.0), {"bet": np.int64(2)})  # numpy numbers count as their values
    for bad in (True, np.bool_(True), 0, float("inf"), "4"):
        with pytest.raises(ValueError, match="anchor_weight must be a positive finite number"):
            check_anchor_weights(bad, {})
