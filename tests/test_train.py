"""``cardgym train`` (training/train.py, training/config.py, training/cmd_train.py): tiny runs end to end, the model
and checkpoint files, resuming, and every bad setting refused in one line before anything is written."""

from __future__ import annotations

import dataclasses
import json
import threading

import numpy as np
import pytest

from agents.ppo import PPOAgent, read_metadata
from agents.registry import make_agent
from envs.registry import make_game
from training.cli import main as cli_main
from training.config import PPOConfig, RecipeError, TrainConfig, load_recipe, to_toml
from training.evaluate import evaluate
from training.train import is_checkpoint, train

TINY = PPOConfig(tables=16, rollout_steps=8, minibatch_size=64, features_dim=32, net_arch=(16,))
QUIET = dict(imitate=0, eval_every=0, eval_deals=8, final_deals=0)
MIX = "learner=5,snapshots=1,random=4"
"""Half the seats the learner's, a tenth its snapshots', the rest random players'."""


def tiny(tmp_path, **changes) -> TrainConfig:
    return TrainConfig(**{"decisions": 300, "out": str(tmp_path / "run"), "ppo": TINY, **QUIET, **changes})


def test_a_tiny_run_writes_a_model_that_plays_as_ppo(tmp_path):
    cfg = tiny(tmp_path, game="flipflop", imitate=500, eval_every=200, final_deals=8, opponents="zoo=1")
    results = train(cfg, log=lambda _line: None)
    out = tmp_path / "run"
    assert results["decisions"] >= 300 and results["model"] == str(out / "model.zip")
    for name in ("model.zip", "checkpoint.zip", "results.json", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == \
        sorted(f"{s}.zip" for s in read_metadata(out / "checkpoint.zip")["train"]["snapshots"])
    meta = read_metadata(out / "model.zip")
    assert meta["train"]["decisions"] == results["decisions"] and meta["train"]["config"]["game"] == "flipflop"
    assert [r["field"] for r in results["fields"]][:2] == ["random", "heuristic"]  # the closing table
    assert any("fields" in point for point in results["curve"])  # a periodic evaluation against the pool
    game = make_game("flipflop", num_players=4)
    agent = make_agent(f"ppo:{out / 'model.zip'}", game)
    assert isinstance(agent, PPOAgent)
    played = evaluate(game, [agent] + [make_agent("random", game)] * 3, deals=40, seed=3)  # illegal actions raise
    assert played.decisions > 0 and np.isfinite(played.mean).all()


def chips_against_random(path, game) -> tuple[float, float]:
    random = make_agent("random", game)
    result = evaluate(game, [make_agent(f"ppo:{path}", game), random, random, random], deals=400, seed=5)
    return float(result.mean[0]), float(result.ci95[0])


def test_a_tiny_run_learns_to_beat_random_at_tripoli(tmp_path):
    """About 6,000 learner decisions (each seat random with probability 3/4, the others learners; no magnet) take
    the policy from losing to random players (its random initial weights) to beating them: measured at seeds 0, 1
    and 2 with the learner, from -8 to -5 chips/deal before to +6 to +14 after, each ± about 4 (400 duplicate
    deals)."""
    game = make_game("tripoli", num_players=4)
    ppo = PPOConfig(tables=64, rollout_steps=16, minibatch_size=256)
    cfg = TrainConfig(decisions=6000, opponents="learner=1,random=3", magnet="", ppo=ppo, **QUIET,
                      out=str(tmp_path / "trained"))
    start = train(dataclasses.replace(cfg, decisions=1, out=str(tmp_path / "start"),
                                      ppo=dataclasses.replace(ppo, learning_rate=0.0)), log=lambda _line: None)
    trained = train(cfg, log=lambda _line: None)
    before, _ = chips_against_random(start["model"], game)
    after, half = chips_against_random(trained["model"], game)
    assert after - half > 0, (before, after, half)
    assert after > before + 5, (before, after)


def test_a_seed_gives_the_same_run_whatever_the_threads_timing(tmp_path):
    """The update runs in a thread of its own beside the collection: the same seed still gives the same numbers (a
    busy machine, where the two threads interleave differently, included: one run is slowed by a third thread)."""
    cfg = tiny(tmp_path, decisions=640, eval_every=256, opponents="learner=2,heuristic,random")
    first = train(cfg, log=lambda _line: None)
    busy = threading.Event()
    spin = threading.Thread(target=lambda: [sum(range(1000)) for _ in iter(busy.is_set, True)], daemon=True)
    spin.start()
    try:
        again = train(dataclasses.replace(cfg, out=str(tmp_path / "again")), log=lambda _line: None)
    finally:
        busy.set()
    assert again["curve"] == first["curve"] and len(first["curve"]) >= 4


def test_every_evaluation_saves_a_snapshot_and_the_magnet_moves_to_it(tmp_path):
    cfg = tiny(tmp_path, decisions=384, eval_every=128, opponents="learner=5,snapshots=1,heuristic=4")
    results = train(cfg, log=lambda _line: None)
    snapshots = read_metadata(tmp_path / "run" / "checkpoint.zip")["train"]["snapshots"]
    assert len(snapshots) == 3 and all(s.startswith("self@") for s in snapshots)
    assert [p["name"] for p in results["pool"]][1:] == snapshots  # the heuristic, then the snapshots
    measured = [f"self@{point['decisions']}" for point in results["curve"] if "fields" in point]
    assert measured == snapshots  # an evaluation at every snapshot (the last one after the loop)
    kls = [point["magnet_kl"] for point in results["curve"]]
    assert kls[0] > 0.5 and min(kls[1:]) < kls[0] / 2, kls  # far from the heuristic at first, then near itself


@pytest.mark.parametrize("opponents", ["learner", "", "learner=3,snapshots=1"])
def test_self_play_alone_or_against_past_selves_runs_with_snapshots(opponents, tmp_path):
    """No fixed agent: every seat the learner's, or from the first snapshot on a quarter of them its snapshots'."""
    results = train(tiny(tmp_path, game="triolet", decisions=384, eval_every=128, opponents=opponents),
                    log=lambda _line: None)
    snapshots = read_metadata(tmp_path / "run" / "checkpoint.zip")["train"]["snapshots"]
    assert len(snapshots) == 3 and [p["name"] for p in results["pool"]] == snapshots
    weights = [p["weight"] for p in results["pool"]]
    assert weights == ([0.3333] * 3 if "snapshots" in opponents else [0.0] * 3)


def test_a_resumed_run_goes_on_from_the_checkpoint(tmp_path):
    first = train(tiny(tmp_path, decisions=256, eval_every=128, opponents=MIX),
                  log=lambda _line: None)
    checkpoint = tmp_path / "run" / "checkpoint.zip"
    more = train(tiny(tmp_path, decisions=512, eval_every=128, opponents=MIX,
                      resume=str(checkpoint), out=str(tmp_path / "more")), log=lambda _line: None)
    assert more["decisions"] >= 512 and more["curve"][:len(first["curve"])] == first["curve"]
    assert more["updates"] == len(more["curve"]) > first["updates"]
    kept = read_metadata(checkpoint)["train"]["snapshots"]
    assert len(kept) == 2 and [p["name"] for p in more["pool"]][1:3] == kept  # the checkpoint's snapshots first
    assert all((tmp_path / "more" / "snapshots" / f"{name}.zip").is_file() for name in kept)  # copied to its folder
    again = train(tiny(tmp_path, decisions=640, eval_every=128, opponents=MIX,  # a resume of the resumed run
                       resume=str(tmp_path / "more" / "checkpoint.zip"), out=str(tmp_path / "again")),
                  log=lambda _line: None)
    assert again["curve"][:len(more["curve"])] == more["curve"] and again["decisions"] >= 640


def test_exploiter_rounds_put_best_responses_to_the_learner_in_its_pool_and_a_resume_keeps_them(tmp_path):
    cfg = tiny(tmp_path, decisions=384, exploiters=128, opponents="random", final_deals=8)
    lines: list[str] = []
    results = train(cfg, log=lines.append)
    rounds, out = results["exploiters"], tmp_path / "run"
    assert len(rounds) >= 2 and all(r["decisions"] >= 128 * (k + 1) for k, r in enumerate(rounds))
    assert all(r["decisions"] < 384 and r["name"] == f"exploiter@{r['decisions']}" for r in rounds)
    assert [p["name"] for p in results["pool"]] == ["random"] + [r["name"] for r in rounds]
    for r in rounds:  # each a best response to the learner as it stood, measured at its tables
        estimate = json.loads((out / "exploiters" / r["name"] / "result.json").read_text())
        assert estimate["agent"] == f"ppo:{out / 'exploiters' / 'target@{}.zip'.format(r['decisions'])}"
        assert estimate["advantage"] == r["advantage"] and estimate["deals"] >= 8
        assert estimate["budget"]["steps"] == 128 and r["unit"] == "chips" and r["seconds"] > 0
        assert any(f"{r['name']} gains" in line for line in lines)
    assert read_metadata(out / "checkpoint.zip")["train"]["exploiters"] == rounds
    assert results["decisions_per_second"] > 0 and "exploiters" in results["config"]
    more = train(tiny(tmp_path, decisions=640, exploiters=128, opponents="random", resume=str(out / "checkpoint.zip"),
                      out=str(tmp_path / "more")), log=lambda _line: None)
    assert more["exploiters"][:len(rounds)] == rounds and len(more["exploiters"]) == len(rounds) + 1
    assert [p["name"] for p in more["pool"]][:len(rounds) + 2] == ["random"] + [r["name"] for r in more["exploiters"]]
    for r in more["exploiters"]:  # the resumed run's folder holds every round its checkpoint names
        assert (tmp_path / "more" / "exploiters" / r["name"] / "model.zip").is_file()


def test_a_run_resumed_from_a_model_file_starts_from_it_and_plays_its_best_response_first(tmp_path):
    """A finished model (``model.zip``: config and decisions, no progress) is a start: its network goes on with a fresh
    optimiser and curve, it is the first snapshot (and magnet), and with ``exploiters`` a best response to it joins the
    pool before the first table."""
    first = train(tiny(tmp_path, decisions=128, opponents="random", final_deals=0), log=lambda _line: None)
    model = tmp_path / "run" / "model.zip"
    assert not is_checkpoint(read_metadata(model)) and is_checkpoint(read_metadata(tmp_path / "run" / "checkpoint.zip"))
    start = first["decisions"]
    more = train(tiny(tmp_path, decisions=start + 256, exploiters=4096, opponents="random", final_deals=8,
                      resume=str(model), out=str(tmp_path / "more")), log=lambda _line: None)
    out = tmp_path / "more"
    assert more["curve"][0]["decisions"] > start and more["decisions"] >= start + 256
    assert [r["name"] for r in more["exploiters"]] == [f"exploiter@{start}"]  # at once; the next at 4096
    estimate = json.loads((out / "exploiters" / f"exploiter@{start}" / "result.json").read_text())
    assert estimate["budget"]["steps"] == 4096
    snapshots = read_metadata(out / "checkpoint.zip")["train"]["snapshots"]
    assert snapshots[0] == f"self@{start}" and (out / "snapshots" / f"self@{start}.zip").is_file()
    assert [p["name"] for p in more["pool"]][:3] == ["random", f"exploiter@{start}", f"self@{start}"]


def test_the_command_line_is_the_config_and_the_recipe_its_defaults(tmp_path, capsys):
    recipe = tmp_path / "tiny.toml"
    recipe.write_text(to_toml(tiny(tmp_path, game="triolet", opponents="zoo=1", final_deals=8)))
    assert load_recipe(recipe) == tiny(tmp_path, game="triolet", opponents="zoo=1", final_deals=8)
    cli_main(["train", "--recipe", str(recipe), "--seed", "3", "--tables", "8", "--net-arch", "8", "4"])
    printed = capsys.readouterr().out
    assert "advantage over the heuristic" in printed and "learner decisions" in printed
    config = json.loads((tmp_path / "run" / "results.json").read_text())["config"]
    assert config["seed"] == 3 and config["game"] == "triolet" and config["ppo"]["tables"] == 8
    assert config["ppo"]["net_arch"] == [8, 4] and config["ppo"]["features_dim"] == 32  # the recipe's


def test_help_names_every_field_with_its_docstring(capsys):
    with pytest.raises(SystemExit):
        cli_main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--recipe", "--decisions", "--opponents", "--eval-every", "--magnet", "--learning-rate",
                 "--magnet-coef", "--net-arch", "--threads", "--engine"):
        assert flag in text, flag
    assert "--snapshot-every" not in text and "--env-runners" not in text  # merged into --eval-every and --engine
    assert "--opponent-share" not in text and "--selfplay-share" not in text  # merged into --opponents
    assert "Learner decisions to train on (the budget" in text and "Adam's learning rate. (default: 0.0003)" in text
    assert "saves a snapshot that joins the pool and becomes the magnet" in text and "rllib:N" in text


def test_the_engine_names_rllibs_env_runners():
    engines = ("cardgym", "rllib", "rllib:1", "rllib:64")
    assert [TrainConfig(engine=engine).env_runners for engine in engines] == [0, 1, 1, 64]


@pytest.mark.parametrize(("argv", "message"), [
    (["--decisions", "0"], "decisions must be an integer from 1"),
    (["--decisions", "many"], "argument --decisions: invalid int value: 'many'"),
    (["--opponent-share", "0.5"], "unrecognized arguments: --opponent-share 0.5"),
    (["--opponents", "learner=0"], "need at least one positive weight"),
    (["--opponents", "heuristic=x"], "opponent 'heuristic=x': the weight after '=' must be a number"),
    (["--opponents", "learner,learner=2,zoo"], "'learner' is given twice"),
    (["--opponents", "learner,zoo,,tight"], "an empty name"),
    (["--learning-rate", "-1"], "ppo.learning_rate must be a number in [0, 1]"),
    (["--net-arch", "0"], "ppo.net_arch must be a list of layer widths"),
    (["--game", "chess"], "argument --game: invalid choice: 'chess'"),
    (["--opponents", "nobody"], "unknown agent 'nobody'"),
    (["--magnet", "nobody"], "unknown agent 'nobody'"),
    (["--imitate", "5", "--magnet", ""], "imitate copies the magnet"),
    (["--advice-gain", "--advisor", ""], "ppo.advice_gain adds to the advised action's logit: give an advisor"),
    (["--opponents", "learner", "--exploiters", "128"], "exploiters join the pool's fixed agents"),
    (["--exploiters", "-1"], "exploiters must be an integer from 0"),
    (["--engine", "rllib:0"], "engine must be cardgym, rllib or rllib:N (N env runners from 1 to 64), got 'rllib:0'"),
    (["--engine", "rllib:65"], "engine must be cardgym, rllib or rllib:N"),
    (["--engine", "rllib:two"], "engine must be cardgym, rllib or rllib:N"),
    (["--engine", "torch"], "engine must be cardgym, rllib or rllib:N"),
    (["--snapshot-every", "5"], "unrecognized arguments: --snapshot-every 5"),
    (["--env-runners", "2"], "unrecognized arguments: --env-runners 2"),
    (["--exploiters", "128", "--out", "a,b"], "exploiters: the out folder 'a,b' cannot hold ',' or '='"),
    (["--recipe", "no-such.toml"], "recipe no-such.toml: no such file"),
    (["--resume", "no-such.zip"], "--resume no-such.zip: no such file"),
])
def test_bad_settings_are_refused_in_one_line_before_anything_is_written(argv, message, tmp_path, capsys,
                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["train", "--out", str(tmp_path / "run"), *argv])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("text", "message"), [
    ("decisions = 0", "decisions must be an integer from 1"),
    ("decision = 5", "unknown setting 'decision'"),
    ("[ppo]\ntable = 5", "[ppo]: unknown setting 'table'"),
    ("ppo = 5", "ppo must be a table"),
    ("seed = \"zero\"", "seed must be an integer"),
    ("game = [", "not TOML"),
    ("[ppo]\nnet_arch = [\"wide\"]", "ppo.net_arch must be a list of layer widths"),
    ("[ppo]\nadvice_gain = 1", "ppo.advice_gain must be true or false, got 1"),
    ("snapshot_every = 5", "setting 'snapshot_every' is gone: merged into eval_every"),
    ("env_runners = 2", "setting 'env_runners' is gone: merged into engine (\"rllib:N\" for N env runners)"),
    ("opponent_share = 0.5", "setting 'opponent_share' is gone: merged into opponents (the learner's seats"),
    ("selfplay_share = 0.2", "setting 'selfplay_share' is gone: merged into opponents (the snapshots' seats"),
    ("engine = \"rllib:100\"", "engine must be cardgym, rllib or rllib:N"),
])
def test_a_bad_recipe_is_refused_in_one_line(text, message, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RecipeError, match=None) as e:
        load_recipe(path)
    assert message in str(e.value) and str(e.value).startswith(f"recipe {path}") and "\n" not in str(e.value)


@pytest.mark.parametrize(("breaks", "message"), [
    (lambda meta: meta.pop("train"), "cardgym.json lacks train"),
    (lambda meta: meta["train"].update(snapshots=["../../etc/passwd"]), "train.snapshots must be a list of names"),
    (lambda meta: meta["train"].update(ahead={"random": 7}), "train.ahead must map names to numbers in [0, 1]"),
    (lambda meta: meta["train"].update(curve="steep"), "train.curve must be a list of JSON objects"),
    (lambda meta: meta["train"].update(decisions=-3), "train.decisions must be a non-negative integer"),
    (lambda meta: meta["train"].update(exploiters="many"), "train.exploiters must be a list of records"),
    (lambda meta: meta["train"].update(exploiters=[{"name": "../x"}]), "records with a name exploiter@N"),
    (lambda meta: meta["train"].update(exploiters=[{"name": "exploiter@5"}]), "exploiter@5's model file"),
])
def test_a_bad_checkpoint_is_refused_in_one_line_and_nothing_is_written(breaks, message, tmp_path):
    train(tiny(tmp_path, decisions=128, opponents="random"), log=lambda _line: None)
    bad = _edited(tmp_path / "run" / "checkpoint.zip", breaks, tmp_path / "bad.zip")
    with pytest.raises(ValueError) as e:
        train(tiny(tmp_path, resume=str(bad), out=str(tmp_path / "resumed")), log=lambda _line: None)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "resumed").exists()


@pytest.mark.parametrize("decisions", [-3, "many", None])
def test_a_model_file_to_start_from_with_bad_decisions_is_refused_in_one_line(decisions, tmp_path):
    """A finished model given to ``resume`` is checked as a checkpoint is: one line, and nothing is written."""
    train(tiny(tmp_path, decisions=128, opponents="random", final_deals=0), log=lambda _line: None)
    bad = _edited(tmp_path / "run" / "model.zip", lambda meta: meta["train"].update(decisions=decisions),
                  tmp_path / "bad.zip")
    with pytest.raises(ValueError) as e:
        train(tiny(tmp_path, resume=str(bad), out=str(tmp_path / "resumed")), log=lambda _line: None)
    assert "train.decisions must be a non-negative integer" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "resumed").exists()


def _edited(source, edit, path):
    """A copy of the model file ``source`` at ``path`` whose metadata ``edit`` changed in place."""
    import zipfile

    with zipfile.ZipFile(source) as z:
        members = {name: z.read(name) for name in z.namelist()}
    meta = json.loads(members["cardgym.json"])
    edit(meta)
    members["cardgym.json"] = json.dumps(meta).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path
