"""``cardgym train --engine rllib`` (RLlib's PPO on Ray over the Gymnasium vector face): the exported model file
computes exactly the RLlib module's logits, and a tiny training on a local Ray ends in a model that
``cardgym eval`` plays. The test needs the rllib extra (in ``dev``: ``pip install -e ".[dev]"``)."""

from __future__ import annotations

import dataclasses
import json
import zipfile

import numpy as np
import pytest
import torch as th

pytest.importorskip("ray.rllib", reason='needs RLlib: pip install -e ".[rllib]"')

from ray.rllib.core.columns import Columns  # noqa: E402

from agents.ppo import PPOAgent  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from envs.core.game import sample_legal  # noqa: E402
from envs.registry import make_game  # noqa: E402
from envs.vector import CardVectorEnv  # noqa: E402
from training.cli import main as cli_main  # noqa: E402
from training.config import PPOConfig, TrainConfig  # noqa: E402
from training.rllib_module import MaskedSymlogModule  # noqa: E402
from training.rllib_train import export_model, ignored  # noqa: E402


def test_exported_model_file_plays_exactly_as_the_rllib_module(tmp_path) -> None:
    cfg = TrainConfig(game="flipflop", players=3, out=str(tmp_path), ppo=PPOConfig(features_dim=32, net_arch=(16, 8)))
    game = make_game("flipflop", 3)
    env = CardVectorEnv(game, 8, RandomAgent(game))
    th.manual_seed(3)
    module = MaskedSymlogModule(observation_space=env.single_observation_space, action_space=env.single_action_space,
                                model_config={"features_dim": 32, "net_arch": [16, 8]})
    with th.no_grad():
        for p in module.parameters():
            p.normal_(0, 0.3)
    path = export_model(module, cfg, tmp_path / "model.zip", extra={"engine": "rllib", "train": {"decisions": 123}})
    agent = PPOAgent(game, path)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(5):
        batch = {Columns.OBS: {k: th.as_tensor(v) for k, v in obs.items()}}
        with th.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
            values = module.compute_values(batch).numpy()
        legal = obs["action_mask"] == 1
        np.testing.assert_allclose(agent.logits(obs["observation"])[legal], logits[legal], rtol=1e-5, atol=1e-5)
        assert (logits[~legal] < -1e30).all()  # masked
        sb3_values = agent.policy.predict_values(th.as_tensor(obs["observation"])).detach().numpy().ravel()
        np.testing.assert_allclose(sb3_values, values, rtol=1e-5, atol=1e-5)
        greedy = agent.act(obs["observation"], legal, rng)
        assert (greedy == np.where(legal, logits, -np.inf).argmax(axis=1)).all()
        obs, *_ = env.step(sample_legal(obs["action_mask"], rng))
    meta = json.loads(zipfile.ZipFile(path).read("cardgym.json"))
    assert meta["engine"] == "rllib" and meta["train"]["decisions"] == 123


def test_tiny_rllib_training_on_local_ray_then_cardgym_eval(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    cli_main(["train", "--engine", "rllib", "--game", "tripoli", "--players", "3", "--tables", "32",
              "--minutes", "0.25", "--final-deals", "60", "--seed", "4", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "advantage over the heuristic" in printed and "env runner(s)" in printed
    assert "--engine rllib runs plain PPO: imitate, magnet, eval_every, the learner's and snapshots' seats" in printed
    results = json.loads((out / "results.json").read_text())
    assert results["engine"] == "rllib" and results["env_runners"] == 1 and results["decisions"] > 0
    cli_main(["eval", "--game", "tripoli", "--players", "3", "--agents", f"ppo:{out / 'model.zip'}", "heuristic",
              "random", "--deals", "60", "--out", str(tmp_path / "eval")])
    assert "ppo" in capsys.readouterr().out


def test_the_settings_rllib_does_not_use_are_named() -> None:
    assert ignored(TrainConfig()) == ["imitate", "magnet", "eval_every",
                                      "the learner's and snapshots' seats in opponents", "advisor"]
    assert ignored(TrainConfig(ppo=PPOConfig(advice_gain=True)))[-1] == "ppo.advice_gain"
    plain = TrainConfig(imitate=0, magnet="", eval_every=0, opponents="zoo", advisor="")
    assert ignored(plain) == [] and ignored(dataclasses.replace(plain, resume="x.zip")) == ["resume"]
