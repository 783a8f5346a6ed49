"""``cardgym train`` end to end at a tiny budget (every game), resume, self-play, and model files refused clearly."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import torch as th

from agents.heldout import heldout_specs
from agents.ppo import ModelFileError, PPOAgent, load_policy, read_metadata
from agents.registry import make_agent
from agents.zoo import bot_names
from envs.registry import GAMES, make_game
from training.cli import main as cli_main
from training.evaluate import evaluate
from training.train import train
from training.train_config import TrainConfig

th.set_num_threads(1)  # as `cardgym train` does: one torch thread is far faster on a busy 2-core machine

TINY = dict(tables=8, n_steps=8, batch_size=32, n_epochs=1, features_dim=32, net_arch=(16,), time_budget=0,
            eval_every=64, eval_deals=8, final_deals=8, checkpoint_every=64, imitate=0, progress=False)


def tiny(tmp_path, name="run", **kw) -> TrainConfig:
    return TrainConfig(**{**TINY, "out": str(tmp_path / name), "total_steps": 128, **kw})


@pytest.fixture(scope="module")
def tripoli_run(tmp_path_factory):
    cfg = tiny(tmp_path_factory.mktemp("train"), opponents="heuristic=3,random=1", imitate=200, imitate_tables=4)
    return cfg, train(cfg)


@pytest.mark.parametrize("game_name", sorted(set(GAMES) - {"tripoli"}))
def test_train_saves_reloads_and_evaluates(tmp_path, game_name):
    cfg = tiny(tmp_path, game=game_name, players=3)
    result = train(cfg)
    _check_run(cfg, result)


def test_train_tripoli_saves_reloads_and_evaluates(tripoli_run):
    _check_run(*tripoli_run)


def _check_run(cfg, result):
    out = __import__("pathlib").Path(cfg.out)
    saved = json.loads((out / "results.json").read_text())
    assert saved["steps"] >= cfg.total_steps and saved["model"] == str(out / "model.zip")
    assert {p["steps"] for p in saved["curve"]} >= {0, 64} and (out / "learning_curve.png").stat().st_size > 1000
    zoo = bot_names(cfg.game) + [f"heldout:{name}" for name in heldout_specs(cfg.game)]
    fields = [f["field"] for f in saved["fields"]]
    assert fields[:len(zoo)] == zoo and all(f.startswith("self@") for f in fields[len(zoo):])
    assert len(fields) == len(zoo) + 2 and fields[len(zoo)] == "self@0"  # the policy PPO started from
    assert all(f["seen"] == "never seen" for f in saved["fields"] if f["field"].startswith("heldout:"))
    assert sorted(saved["final"]) == sorted(fields) and saved["final"]["heuristic"]["agents"][0]["agent"] == "ppo"
    pool = {spec.split("=")[0] for spec in cfg.opponents.split(",")}
    for f in saved["fields"]:
        assert f["seen"] == ("earlier snapshot" if f["field"].startswith("self@") else
                             "in the training pool" if f["field"] in pool else
                             "imitated" if cfg.imitate and f["field"] == cfg.imitate_teacher else "never seen")
        assert f["beats"] == (f["advantage"] - f["ci95"] > 0) and f["deals"] >= cfg.final_deals
        assert f["advantage"] == pytest.approx(f["candidate"] - f["reference"])
    assert saved["beats_heuristic_in_every_field"] == all(f["beats"] for f in saved["fields"])
    heuristic = saved["fields"][zoo.index("heuristic")]
    assert saved["advantage_vs_heuristic"]["mean"] == heuristic["advantage"]
    assert saved["imitation"].get("decisions", 0) >= cfg.imitate
    assert saved["kept"]["rule"] == "last" == cfg.keep and not (out / "last.zip").exists()
    assert saved["kept"]["is_last"] and saved["kept"]["steps"] == saved["curve"][-1]["steps"]
    assert list((out / "checkpoints").glob("step_*.zip")) and list((out / "tb").iterdir())
    game = make_game(cfg.game, num_players=cfg.players)
    agent = make_agent(f"ppo:{out / 'model.zip'}", game)
    assert isinstance(agent, PPOAgent)
    res = evaluate(game, [agent] + [make_agent("random", game)] * (cfg.players - 1), deals=6, seed=1)
    assert np.isfinite(res.mean).all()
    # the saved policy is the trained one: same logits as the model in memory would give on a real observation
    obs = game.observe(game.init(5, batch_size=4), np.zeros(4, np.int64))
    np.testing.assert_allclose(agent.logits(obs), PPOAgent(game, out / "model.zip").logits(obs))
    meta = read_metadata(out / "model.zip")
    assert meta["game"] == cfg.game and meta["num_players"] == cfg.players
    assert meta["observation_size"] == game.observation_size and meta["num_actions"] == game.num_actions


def test_resume_continues_from_the_checkpoint(tripoli_run, tmp_path):
    cfg, _ = tripoli_run
    ckpt = sorted((__import__("pathlib").Path(cfg.out) / "checkpoints").glob("step_*.zip"))[0]
    start = read_metadata(ckpt)["ppo"]["num_timesteps"]
    game = make_game("tripoli")
    before = load_policy(ckpt, game).state_dict()
    cfg2 = tiny(tmp_path, "resumed", resume=str(ckpt), total_steps=start + 128)
    result = train(cfg2)
    assert result["steps"] >= start + 128
    curve = result["curve"]
    assert curve[0]["steps"] == 0 and curve[-1]["steps"] >= start + 128  # the checkpoint's curve, continued
    after = load_policy(result["model"], game).state_dict()
    assert any(not th.equal(before[k], after[k]) for k in before)


def test_selfplay_adds_snapshots_to_the_pool_on_schedule(tmp_path):
    result = train(tiny(tmp_path, selfplay=True, total_steps=192, eval_every=64, selfplay_every=128,
                        selfplay_share=0.4, snapshot_fields=0))
    pool = result["opponent_pool"]
    assert pool[0] == "heuristic" and [p for p in pool[1:]] == ["self@0", "self@128"]
    assert result["opponent_weights"] == pytest.approx([0.6, 0.2, 0.2])
    heldout = [f"heldout:{n}" for n in heldout_specs("tripoli")]
    assert [f["field"] for f in result["fields"]] == bot_names("tripoli") + heldout


@pytest.mark.parametrize("league_by", ["stakes", "deals"])
def test_league_reweights_the_pool_from_every_evaluation(tmp_path, monkeypatch, league_by):
    import itertools

    import training.evaluate

    real = training.evaluate.paired_advantage
    # the two shares disagree, alternately in each direction (the fields are evaluated in turn), so the weights
    # tell which one the league used
    shares = itertools.cycle([(0.9, 0.2), (0.2, 0.9)])
    monkeypatch.setattr(training.evaluate, "paired_advantage",
                        lambda result, base: (*real(result, base)[:2], *next(shares)))
    result = train(tiny(tmp_path, opponents="heuristic=3,random=1", league=True, whole_table=0.5,
                        fields="random,tight", snapshot_fields=1, league_by=league_by))
    assert [f["field"] for f in result["fields"]] == ["random", "tight", "self@0"]
    assert [f["seen"] for f in result["fields"]] == ["in the training pool", "never seen", "earlier snapshot"]
    for point in result["curve"]:
        assert set(point["fields"]) == {"heuristic", "random"} and point["score"] == min(
            f["advantage"] for f in point["fields"].values())
        ahead = {k: f["ahead" if league_by == "stakes" else "won"] for k, f in point["fields"].items()}
        raw = [0.75 * max((1 - ahead["heuristic"]) ** 2, 0.05), 0.25 * max((1 - ahead["random"]) ** 2, 0.05)]
        assert [point["weights"]["heuristic"], point["weights"]["random"]] == pytest.approx(
            [w / sum(raw) for w in raw], abs=1e-4)
    assert result["opponent_weights"] == pytest.approx(list(result["curve"][-1]["weights"].values()), abs=1e-4)
    assert "advantage_vs_heuristic" not in result  # no heuristic field in the closing table


@pytest.mark.parametrize("index, steps", [(2, 128), (3, 192)])
def test_keep_best_saves_the_chosen_evaluation_and_the_last_policy_apart(tmp_path, monkeypatch, index, steps):
    import training.train

    chosen = []

    def choose(curve, start):  # stands in for the rule (tests/test_keep.py): a policy not the last
        chosen.append((start, [p["steps"] for p in curve]))
        return index

    monkeypatch.setattr(training.train, "best_point", choose)
    result = train(tiny(tmp_path, keep="best", total_steps=192, snapshot_fields=0))
    out = tmp_path / "run"
    # every evaluation of the run; it ended on its step count, so it evaluated at 192 twice: in the loop, before its
    # last update (as the checkpoint at 192 saw it), and after it, the final policy
    assert chosen == [(0, [0, 64, 128, 192, 192])]
    assert result["kept"] == {"rule": "best", "steps": steps, "is_last": False,
                              "worst_family": result["curve"][index]["advantage"]}
    assert json.loads((out / "results.json").read_text())["kept"] == result["kept"]
    game = make_game("tripoli")
    obs = game.observe(game.init(5, batch_size=4), np.zeros(4, np.int64))
    logits = {name: PPOAgent(game, out / name).logits(obs) for name in (
        "model.zip", "last.zip", f"checkpoints/step_{steps}.zip")}
    np.testing.assert_array_equal(logits["model.zip"], logits[f"checkpoints/step_{steps}.zip"])
    assert not np.array_equal(logits["model.zip"], logits["last.zip"])
    assert read_metadata(out / "last.zip")["ppo"]["num_timesteps"] == 192


def _logged(out, tag: str) -> list[float]:
    """The values TensorBoard recorded under ``tag`` in a run's ``tb/`` folder, in step order."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (run,) = (out / "tb").iterdir()
    events = EventAccumulator(str(run)).Reload()
    return [e.value for e in sorted(events.Scalars(tag), key=lambda e: e.step)]


def test_annealed_learning_rate_falls_linearly_to_zero_over_the_run(tmp_path):
    train(tiny(tmp_path, anneal_lr=1.0, total_steps=320, learning_rate=1e-3))  # 5 rollouts of 64 decisions
    rates = _logged(tmp_path / "run", "train/learning_rate")
    # each update follows a rollout: 64, 128, ... of the 320 decisions are behind it (SB3 writes an update's
    # numbers when the next rollout ends, so the last update, at rate 0, is not in the log)
    assert rates == pytest.approx([1e-3 * (1 - k * 64 / 320) for k in range(1, 5)], abs=1e-9)
    train(tiny(tmp_path, "last-half", anneal_lr=0.5, total_steps=320, learning_rate=1e-3))
    # constant until half-way (160 decisions), then down to 0 at 320: (320 - 192) / 160 = 0.8, then 0.4
    assert _logged(tmp_path / "last-half", "train/learning_rate") == pytest.approx([1e-3, 1e-3, 8e-4, 4e-4],
                                                                                  abs=1e-9)
    constant = tiny(tmp_path, "constant", total_steps=320, learning_rate=1e-3)
    train(constant)
    assert _logged(tmp_path / "constant", "train/learning_rate") == pytest.approx([1e-3] * 4)


def test_the_share_of_the_ppo_phase_done_counts_steps_or_time_whichever_is_further():
    from types import SimpleNamespace

    from training.train import AnnealedRate, TrainingCallback

    def done(steps: int, seconds: float, total_steps: int = 1000, budget: float = 0.0) -> float:
        cfg = SimpleNamespace(total_steps=total_steps, time_budget=budget)
        # PPO started at 100 decisions (a resumed run) and 20 s into the run (after the imitation)
        state = SimpleNamespace(cfg=cfg, num_timesteps=steps, start_steps=100, ppo_started=20.0,
                                elapsed=lambda: seconds)
        return TrainingCallback.done(state)

    assert done(100, 20.0) == 0.0 and done(550, 500.0) == pytest.approx(0.5) and done(1000, 0.0) == 1.0
    assert done(550, 60.0, budget=100.0) == pytest.approx(0.5)  # 450 of 900 decisions, 40 of 80 s
    assert done(200, 60.0, budget=100.0) == pytest.approx(0.5)  # time is further along
    assert done(200, 150.0, budget=100.0) == 1.0  # past the budget (the closing evaluation): capped
    rate = AnnealedRate(3e-4, 1.0, SimpleNamespace(done=lambda: 0.25))
    assert rate(1.0) == pytest.approx(2.25e-4) and rate(0.0) == pytest.approx(2.25e-4)  # SB3's progress unused
    assert AnnealedRate(3e-4, 0.5, SimpleNamespace(done=lambda: 0.25))(1.0) == pytest.approx(3e-4)
    assert AnnealedRate(3e-4, 0.5, SimpleNamespace(done=lambda: 0.75))(1.0) == pytest.approx(1.5e-4)


def test_bad_settings_are_refused_before_training(tmp_path):
    for kw, message in ((dict(whole_table=1.5), "whole_table"), (dict(league_floor=0.0), "league_floor"),
                        (dict(league_power=0.0), "league_power must be a positive finite number"),
                        (dict(league_power=float("inf")), "league_power must be a positive finite number"),
                        (dict(selfplay_every=0), "selfplay_every"), (dict(reward_scale=0.0), "reward_scale"),
                        (dict(learning_rate=0.0), "learning_rate must be positive"),
                        (dict(anneal_lr=1.5), "anneal_lr must be between 0 and 1"),
                        (dict(league_by="wins"), "league_by must be one of stakes, deals"),
                        (dict(keep="first"), "keep must be one of last, best"),
                        (dict(anneal_lr=float("nan")), "anneal_lr must be between 0 and 1"),
                        (dict(ent_coef=-0.01), "ent_coef must be 0 or more")):
        with pytest.raises(ValueError, match=message):
            tiny(tmp_path, **kw)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        train(tiny(tmp_path, fields="zoo,nobody"))
    with pytest.raises(ValueError, match="the game triolet has no hint features"):
        train(tiny(tmp_path, game="triolet", hints=True))
    assert not (tmp_path / "run" / "model.zip").exists()


def test_corrupt_and_mismatched_model_files_are_refused(tripoli_run, tmp_path):
    cfg, result = tripoli_run
    model = __import__("pathlib").Path(result["model"])
    game = make_game("tripoli")
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all" * 10)
    with pytest.raises(ModelFileError, match="corrupt or not a model zip"):
        PPOAgent(game, garbage)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(model.read_bytes()[: model.stat().st_size // 2])
    with pytest.raises(ModelFileError, match="corrupt"):
        PPOAgent(game, truncated)
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(model) as src, zipfile.ZipFile(bare, "w") as dst:
        for item in src.namelist():
            if item != "cardgym.json":
                dst.writestr(item, src.read(item))
    with pytest.raises(ModelFileError, match="not a cardgym model"):
        PPOAgent(game, bare)
    with pytest.raises(ModelFileError, match="trained for 'tripoli', not 'triolet'"):
        PPOAgent(make_game("triolet", num_players=4), model)
    with pytest.raises(ModelFileError, match="action count"):
        PPOAgent(make_game("tripoli", max_bid=5), model)
    with pytest.warns(UserWarning, match="trained at 4 players, playing at 6"):
        PPOAgent(make_game("tripoli", num_players=6), model)
    with pytest.raises(ModelFileError, match="not found"):
        PPOAgent(game, tmp_path / "missing.zip")


def test_cli_refuses_bad_input_with_one_clear_line(tripoli_run, tmp_path, capsys):
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"\x00" * 100)
    with pytest.raises(SystemExit) as e:
        cli_main(["eval", "--agents", f"ppo:{garbage}", "random", "random", "random", "--deals", "4"])
    assert e.value.code == 2 and "corrupt" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["train", "--opponents", "nobody", "--out", str(tmp_path / "x"), "--steps", "8"])
    assert e.value.code == 2 and "unknown agent" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["train", "--option", "max_bid=0", "--out", str(tmp_path / "y"), "--steps", "8"])
    assert e.value.code == 2 and "max_bid" in capsys.readouterr().err
    for flag, value, message in (("--anneal-lr", "2", "anneal_lr must be between 0 and 1"),
                                 ("--whole-table", "1.5", "whole_table must be a probability in [0, 1]"),
                                 ("--league-floor", "2", "league_floor must be in (0, 1]"),
                                 ("--league-floor", "0", "--league-floor: must be a number > 0"),
                                 ("--league-power", "nan", "--league-power: must be a finite number"),
                                 ("--league-power", "four", "--league-power: must be a number"),
                                 ("--anchor-weight-on", "fold", "--anchor-weight-on: must be KIND=W"),
                                 ("--anchor-weight-on", "fold=0", "--anchor-weight-on: must be a number > 0"),
                                 ("--anchor-weight-on", "fold=1", "anchor_kind_weights needs an anchor")):
        with pytest.raises(SystemExit) as e:
            cli_main(["train", flag, value, "--out", str(tmp_path / "z"), "--steps", "8"])
        err = capsys.readouterr().err
        assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "z").exists()


def test_train_refuses_an_action_kind_the_game_does_not_have(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli_main(["train", "--game", "flipflop", "--anchor", "heuristic", "--anchor-weight-on", "fold=1",
                  "--out", str(tmp_path / "z"), "--steps", "8"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "--anchor-weight-on: no flipflop action is of kind 'fold' (its kinds: claim, discard, draw discard" in err
    assert not (tmp_path / "z").exists()


def test_imitation_clones_the_teacher_and_its_chips_to_go():
    from sb3_contrib import MaskablePPO

    from agents.ppo import SymlogFeatures
    from training.imitation import demonstrations, imitate
    from training.sb3_vec_env import CardVecEnv

    class Lowest:  # a teacher that is easy to learn: the lowest legal action id
        name = "lowest"

        def act(self, obs, mask, rng):
            return mask.argmax(axis=1)

    game = make_game("tripoli")
    obs, masks, actions, to_go = demonstrations(game, Lowest(), np.arange(4, dtype=np.uint64),
                                                np.random.default_rng(0))
    assert len(obs) == len(masks) == len(actions) == len(to_go) > 4 * 4
    assert masks[np.arange(len(actions)), actions].all()
    # the first decision is the first seat to act: its chips to go + its chips from the deal (ante, pay cards) = its
    # episode return
    state = game.init(np.arange(4, dtype=np.uint64), batch_size=4)
    first = state.current_player.copy()
    dealt, total = state.rewards.copy(), state.rewards.copy()
    while not state.done.all():
        game.step(state, state.legal_action_mask.argmax(axis=1))
        total += state.rewards
    np.testing.assert_allclose(to_go[:4], (total - dealt)[np.arange(4), first])
    env = CardVecEnv(game, 2, Lowest(), seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, device="cpu",
                        policy_kwargs={"features_extractor_class": SymlogFeatures,
                                       "features_extractor_kwargs": {"features_dim": 32}, "net_arch": [16]})
    stats = imitate(model.policy, game, Lowest(), 3_000, seed=0, reward_scale=0.1, tables=64, epochs=4,
                    batch_size=256, learning_rate=3e-3)
    assert stats["decisions"] >= 3_000 and stats["accuracy"] > 0.9


def test_cardgym_train_command_prints_the_evaluation(tmp_path, capsys):
    out = tmp_path / "cli"
    cli_main(["train", "--tables", "8", "--steps", "128", "--minutes", "0", "--imitate", "0", "--eval-every", "64",
              "--eval-deals", "8", "--final-deals", "8", "--checkpoint-every", "1000", "--no-progress",
              "--out", str(out)])
    text = capsys.readouterr().out
    assert "advantage over the heuristic in the same seats" in text and "random" in text
    assert (out / "model.zip").is_file() and (out / "results.json").is_file()
