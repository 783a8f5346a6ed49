"""Model files are data: loading one never unpickles anything (a planted pickle runs no code), a normal model still
plays exactly as the saved policy and resumes with its optimiser state and step count, and every broken or hostile
file is refused with a one-line :class:`ModelFileError` (hand-made cases, and hypothesis edits of the metadata and of
the bytes)."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch as th
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sb3_contrib import MaskablePPO

from agents.model_file import METADATA_NAME, OPTIMIZER_MEMBER, POLICY_MEMBER
from agents.ppo import ModelFileError, PPOAgent, SymlogFeatures, load_model, load_policy, load_trainable, save_model
from agents.random_agent import RandomAgent
from envs.registry import make_game
from training.sb3_vec_env import CardVecEnv

OBS = make_game("tripoli").observation_size
"""The Tripoli observation size (the models of these tests are Tripoli models)."""

th.set_num_threads(1)

GAME = make_game("tripoli")


def new_env() -> CardVecEnv:
    return CardVecEnv(GAME, 2, RandomAgent(GAME), seed=0)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[MaskablePPO, Path]:
    """A tiny MaskablePPO after two updates (so its optimiser has state), saved as a model file."""
    model = MaskablePPO("MlpPolicy", new_env(), n_steps=8, batch_size=16, n_epochs=1, learning_rate=1e-3,
                        clip_range=0.15, gamma=1.0, seed=3, device="cpu",
                        policy_kwargs={"features_extractor_class": SymlogFeatures,
                                       "features_extractor_kwargs": {"features_dim": 16}, "net_arch": [8]})
    model.learn(32)
    path = save_model(model, tmp_path_factory.mktemp("model") / "model.zip", GAME, {"note": "tiny"})
    return model, path


def observations(batch: int = 6) -> np.ndarray:
    state = GAME.init(np.arange(batch, dtype=np.uint64), batch_size=batch)
    return GAME.observe(state, state.current_player)


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def write_zip(path: Path, content: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in content.items():
            z.writestr(name, data)
    return path


def tensor_bytes(obj: Any) -> bytes:
    buffer = io.BytesIO()
    th.save(obj, buffer)
    return buffer.getvalue()


class WritesFile:
    """Unpickling this runs ``exec`` (``__reduce__``): it writes the file ``marker``. The pickle refers to the builtin
    ``exec`` only, so it works wherever it is unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('code ran')",)


def assert_one_line_refusal(load: Callable[[], Any], fragment: str) -> str:
    with pytest.raises(ModelFileError) as info:
        load()
    message = str(info.value)
    assert "\n" not in message and message.startswith("model file ")
    assert fragment in message, message
    return message


# ----- a normal model ------------------------------------------------------------------------------------------------
def test_a_model_file_holds_json_and_tensors_and_plays_as_the_saved_policy(trained) -> None:
    model, path = trained
    assert sorted(members(path)) == sorted([METADATA_NAME, POLICY_MEMBER, OPTIMIZER_MEMBER])
    meta = json.loads(members(path)[METADATA_NAME])
    assert meta["policy"]["net_arch"] == [8] and meta["policy"]["features_extractor_kwargs"] == {"features_dim": 16}
    assert meta["policy"]["activation_fn"] == "Tanh" and meta["ppo"]["num_timesteps"] == model.num_timesteps == 32
    assert meta["ppo"]["learning_rate"] == 1e-3 and meta["ppo"]["clip_range"] == 0.15 and meta["note"] == "tiny"
    obs = observations()
    saved = PPOAgent(GAME, policy=model.policy).logits(obs)
    loaded = PPOAgent(GAME, path)
    np.testing.assert_array_equal(loaded.logits(obs), saved)
    mask = np.ones((len(obs), GAME.num_actions), bool)
    np.testing.assert_array_equal(loaded.act(obs, mask, np.random.default_rng(0)), saved.argmax(axis=1))
    for name, tensor in model.policy.state_dict().items():
        assert th.equal(load_policy(path, GAME).state_dict()[name], tensor)


def test_resume_restores_weights_optimiser_state_hyperparameters_and_step_count(trained) -> None:
    model, path = trained
    resumed = load_model(path, GAME, new_env(), seed=1)
    assert resumed.num_timesteps == model.num_timesteps == 32 and resumed._n_updates == model._n_updates == 2
    for key in ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef", "vf_coef", "max_grad_norm",
                "learning_rate", "normalize_advantage", "target_kl"):
        assert getattr(resumed, key) == getattr(model, key), key
    assert resumed.clip_range(1.0) == model.clip_range(1.0) == 0.15
    before, after = model.policy.optimizer.state_dict(), resumed.policy.optimizer.state_dict()
    assert after["param_groups"] == before["param_groups"]
    assert sorted(after["state"]) == sorted(before["state"]) and len(before["state"]) > 0
    for index, entries in before["state"].items():
        assert sorted(after["state"][index]) == sorted(entries)
        for key, value in entries.items():
            assert th.equal(after["state"][index][key], value), (index, key)
    assert float(before["state"][0]["step"]) == 2.0
    for name, tensor in model.policy.state_dict().items():
        assert th.equal(resumed.policy.state_dict()[name], tensor)
    resumed.learn(16, reset_num_timesteps=False)  # and it trains on: the restored Adam state is used
    assert resumed.num_timesteps == 48 and float(resumed.policy.optimizer.state_dict()["state"][0]["step"]) == 3.0


def test_saving_records_only_what_json_can_rebuild(tmp_path) -> None:
    small = {"features_extractor_class": SymlogFeatures, "features_extractor_kwargs": {"features_dim": 8},
             "net_arch": [4]}
    scheduled = MaskablePPO("MlpPolicy", new_env(), n_steps=8, batch_size=16, learning_rate=lambda progress: 1e-3,
                            device="cpu", policy_kwargs=small)
    with pytest.raises(ValueError, match="records a constant learning rate, not <function"):
        save_model(scheduled, tmp_path / "scheduled.zip", GAME)
    swish = MaskablePPO("MlpPolicy", new_env(), n_steps=8, batch_size=16, device="cpu",
                        policy_kwargs={**small, "activation_fn": th.nn.Hardswish})
    with pytest.raises(ValueError, match="cannot record the activation Hardswish"):
        save_model(swish, tmp_path / "swish.zip", GAME)
    flat = MaskablePPO("MlpPolicy", new_env(), n_steps=8, batch_size=16, device="cpu", policy_kwargs={"net_arch": [4]})
    with pytest.raises(ValueError, match=r"cannot record the features extractor FlattenExtractor \(allowed: Symlog"):
        save_model(flat, tmp_path / "flat.zip", GAME)
    other = MaskablePPO("MlpPolicy", new_env(), n_steps=8, batch_size=16, device="cpu",
                        policy_kwargs={"features_extractor_class": SymlogFeatures, "activation_fn": th.nn.ReLU,
                                       "features_extractor_kwargs": {"features_dim": 8}, "ortho_init": False,
                                       "net_arch": {"pi": [4, 6], "vf": [5]},
                                       "optimizer_kwargs": {"betas": (0.8, 0.9)}})
    with pytest.raises(ValueError, match=r"extra entries \['ppo'\] would replace"):
        save_model(other, tmp_path / "other.zip", GAME, {"ppo": 1})
    assert list(tmp_path.iterdir()) == []  # nothing written, no partial file left behind
    path = save_model(other, tmp_path / "other.zip", GAME)
    save_model(other, path, GAME)  # saving over a model replaces it
    assert [p.name for p in tmp_path.iterdir()] == ["other.zip"]
    resumed = load_model(path, GAME, new_env())
    assert resumed.policy.net_arch == {"pi": [4, 6], "vf": [5]} and resumed.policy.activation_fn is th.nn.ReLU
    assert resumed.policy.optimizer.param_groups[0]["betas"] == (0.8, 0.9)
    obs = observations(3)
    np.testing.assert_array_equal(PPOAgent(GAME, path).logits(obs), PPOAgent(GAME, policy=other.policy).logits(obs))


# ----- planted pickles -----------------------------------------------------------------------------------------------
def plant_in_data_member(model: MaskablePPO, path: Path, out: Path, marker: Path) -> Path:
    """What an attacker would share: stable-baselines3's full zip (with its ``data`` member) whose pickled
    ``lr_schedule`` writes ``marker`` when unpickled, plus a ``cardgym.json`` copied from a genuine model."""
    model.save(out)
    content = members(out)
    data = json.loads(content["data"])
    data["lr_schedule"][":serialized:"] = base64.b64encode(pickle.dumps(WritesFile(marker))).decode()
    content["data"] = json.dumps(data).encode()
    content[METADATA_NAME] = members(path)[METADATA_NAME]
    return write_zip(out, content)


def test_a_pickle_planted_in_the_data_member_never_runs(trained, tmp_path) -> None:
    from stable_baselines3.common.save_util import load_from_zip_file

    model, path = trained
    marker = tmp_path / "marker_cardgym"
    hostile = plant_in_data_member(model, path, tmp_path / "hostile.zip", marker)
    obs = observations()
    np.testing.assert_array_equal(PPOAgent(GAME, hostile).logits(obs), PPOAgent(GAME, policy=model.policy).logits(obs))
    assert load_model(hostile, GAME, new_env()).num_timesteps == 32
    assert not marker.exists()
    # the control: the same planted file does run its code in a loader that unpickles (stable-baselines3's)
    control_marker = tmp_path / "marker_control"
    control = plant_in_data_member(model, path, tmp_path / "control.zip", control_marker)
    load_from_zip_file(control, device="cpu")
    assert control_marker.read_text() == "code ran"


@pytest.mark.parametrize("member", [POLICY_MEMBER, OPTIMIZER_MEMBER])
def test_a_pickle_planted_in_a_tensor_file_is_refused_and_never_runs(trained, tmp_path, member) -> None:
    _, path = trained
    marker = tmp_path / "marker"
    content = members(path)
    genuine = th.load(io.BytesIO(content[member]), weights_only=True)
    content[member] = tensor_bytes({**genuine, "extra": WritesFile(marker)})
    hostile = write_zip(tmp_path / "hostile.zip", content)
    message = assert_one_line_refusal(lambda: load_model(hostile, GAME, new_env()), "is not a weights-only torch file")
    assert "Unsupported global" in message and "exec" in message
    if member == POLICY_MEMBER:
        assert_one_line_refusal(lambda: PPOAgent(GAME, hostile), "is not a weights-only torch file")
    assert not marker.exists()
    # the control: torch's full unpickler would have run it
    th.load(io.BytesIO(content[member]), weights_only=False)
    assert marker.read_text() == "code ran"


# ----- broken files --------------------------------------------------------------------------------------------------
def edit_meta(edit: Callable[[dict], None]) -> Callable[[dict[str, bytes]], None]:
    def apply(content: dict[str, bytes]) -> None:
        meta = json.loads(content[METADATA_NAME])
        edit(meta)
        content[METADATA_NAME] = json.dumps(meta).encode()
    return apply


def edit_tensors(member: str, edit: Callable[[Any], Any]) -> Callable[[dict[str, bytes]], None]:
    def apply(content: dict[str, bytes]) -> None:
        content[member] = tensor_bytes(edit(th.load(io.BytesIO(content[member]), weights_only=True)))
    return apply


def truncated_storage(content: dict[str, bytes]) -> None:
    """``policy.pth`` whose first tensor's data record is cut short (torch's zip format rewritten by hand)."""
    inner = zipfile.ZipFile(io.BytesIO(content[POLICY_MEMBER]))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in inner.namelist():
            data = inner.read(name)
            z.writestr(name, data[: len(data) // 2] if name.endswith("/data/0") else data)
    content[POLICY_MEMBER] = out.getvalue()


def drop(*names: str) -> Callable[[dict[str, bytes]], None]:
    def apply(content: dict[str, bytes]) -> None:
        for name in names:
            del content[name]
    return apply


def replace(name: str, data: bytes) -> Callable[[dict[str, bytes]], None]:
    def apply(content: dict[str, bytes]) -> None:
        content[name] = data
    return apply


def shrink(name: str) -> Callable[[dict], dict]:
    return lambda state: {**state, name: state[name][:-1]}


def set_in(*keys_and_value: Any) -> Callable[[dict], None]:
    *keys, value = keys_and_value

    def edit(meta: dict) -> None:
        target = meta
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return edit


BROKEN_FOR_PLAYING = {
    "only cardgym.json": (drop(POLICY_MEMBER, OPTIMIZER_MEMBER), "has no policy.pth (the policy weights)"),
    "no policy.pth": (drop(POLICY_MEMBER), "has no policy.pth"),
    "policy.pth cut short": (lambda c: c.__setitem__(POLICY_MEMBER, c[POLICY_MEMBER][:300]),
                             "policy.pth (the policy weights) is not a weights-only torch file"),
    "policy.pth not a torch file": (replace(POLICY_MEMBER, b"junk" * 50), "is not a weights-only torch file"),
    "truncated tensor data": (truncated_storage, "is not a weights-only torch file: record size"),
    "tensor of another shape": (edit_tensors(POLICY_MEMBER, shrink("action_net.weight")),
                                "tensor 'action_net.weight' is torch.float32 (107, 8), the policy described in "
                                "cardgym.json needs torch.float32 (108, 8)"),
    "tensor of another dtype": (edit_tensors(POLICY_MEMBER, lambda s: {**s, "value_net.bias": s["value_net.bias"]
                                                                       .double()}), "needs torch.float32 (1,)"),
    "non-finite weights": (edit_tensors(POLICY_MEMBER, lambda s: {**s, "value_net.bias": s["value_net.bias"] * np.nan}),
                           "tensor 'value_net.bias' holds non-finite values"),
    "a tensor missing": (edit_tensors(POLICY_MEMBER, lambda s: {k: v for k, v in s.items() if k != "value_net.bias"}),
                         "does not fit the policy described in cardgym.json; missing value_net.bias"),
    "an unexpected tensor": (edit_tensors(POLICY_MEMBER, lambda s: {**s, "backdoor": th.zeros(1)}),
                             "unexpected 'backdoor'"),
    "a number for a tensor": (edit_tensors(POLICY_MEMBER, lambda s: {**s, "value_net.bias": 0.5}),
                              "entry 'value_net.bias' must be a tensor, got float"),
    "policy.pth a zip bomb": (replace(POLICY_MEMBER, bytes(8 * 2**20)), "policy.pth unpacks to 8,388,608 bytes, more "
                              "than the 1,"),
    "cardgym.json a zip bomb": (replace(METADATA_NAME, b" " * (17 * 2**20)), "cardgym.json unpacks to 17,825,792 "
                                "bytes, more than the 16,777,216 it can take"),
    "policy.pth a bare tensor": (edit_tensors(POLICY_MEMBER, lambda s: th.zeros(3)), "must hold a dict of tensors"),
    "a model of another env version": (edit_meta(set_in("env_version", "tripoli_v0")),
                                       "was trained for tripoli_v0, this cardgym plays tripoli_v1 (its rules, "
                                       "observation or actions differ: train the model again)"),
    "metadata of a wider network": (edit_meta(set_in("policy", "features_extractor_kwargs", "features_dim", 32)),
                                    f"tensor 'features_extractor.linear.weight' is torch.float32 (16, {OBS}), the "
                                    f"policy described in cardgym.json needs torch.float32 (32, {OBS})"),
    "a huge network described": (edit_meta(set_in("policy", "net_arch", [10**9])),
                                 "needs torch.float32 (1000000000, 16)"),
    "net_arch not widths": (edit_meta(set_in("policy", "net_arch", "big")), "policy.net_arch must be a list"),
    "net_arch of negative widths": (edit_meta(set_in("policy", "net_arch", {"pi": [-1], "vf": [4]})),
                                    "policy.net_arch must be a list"),
    "activation names code": (edit_meta(set_in("policy", "activation_fn", "os.system")),
                              "policy.activation_fn must be one of Tanh, ReLU"),
    "extractor names code": (edit_meta(set_in("policy", "features_extractor", "builtins:eval")),
                             "policy.features_extractor must be one of SymlogFeatures, got 'builtins:eval'"),
    "policy class names code": (edit_meta(set_in("policy", "class", "subprocess.Popen")), "policy.class must be"),
    "negative features_dim": (edit_meta(set_in("policy", "features_extractor_kwargs", "features_dim", -1)),
                              "policy.features_extractor_kwargs.features_dim must be a positive integer, got -1"),
    "hints of the first trainer": (edit_meta(set_in("policy", "features_extractor_kwargs", "hints",
                                                    "tripoli-betting")),
                                   "a model of cardgym's first trainer, with hint inputs"),
    "an advisor that names code": (edit_meta(set_in("policy", "advisor", "os:system")),
                                   "policy.advisor must be one of heuristic, tight, aggressive, longsuit, lowlead, "
                                   "got 'os:system'"),
    "an advisor as a number": (edit_meta(set_in("policy", "advisor", 3)), "policy.advisor must be a bot name, got 3"),
    "an advice gain without an advisor": (edit_meta(set_in("policy", "advice_gain", True)),
                                          "policy.advice_gain must be true or false, and true only with an advisor, "
                                          "got True"),
    "an advice gain as a word": (edit_meta(set_in("policy", "advice_gain", "yes")),
                                 "policy.advice_gain must be true or false, and true only with an advisor, got 'yes'"),
    "an anchored policy of the first trainer": (edit_meta(set_in("policy", "class", "AnchoredPolicy")),
                                                "a model of cardgym's first trainer, with an anchored policy"),
    "an unknown extractor argument": (edit_meta(set_in("policy", "features_extractor_kwargs", "depth", 3)),
                                      "the policy described in cardgym.json cannot be built"),
    "a string optimiser setting": (edit_meta(set_in("policy", "optimizer_kwargs", "eps", "tiny")),
                                   "policy.optimizer_kwargs.eps must be a number"),
    "a boolean layout flag as a string": (edit_meta(set_in("policy", "ortho_init", "yes")),
                                          "policy.ortho_init must be a boolean, got 'yes'"),
    "no policy section": (edit_meta(lambda m: m.pop("policy")), "cardgym.json lacks policy"),
    "the older format": (edit_meta(set_in("format", 1)), "is in model format 1; this cardgym reads format 2 only"),
    "metadata a list": (replace(METADATA_NAME, b"[1, 2]"), "cardgym.json must hold a JSON object, not list"),
    "metadata not JSON": (replace(METADATA_NAME, b"{oops"), "has an unreadable cardgym.json"),
    "metadata nested too deep": (replace(METADATA_NAME, b"[" * 100_000), "has an unreadable cardgym.json"),
    "metadata not text": (replace(METADATA_NAME, b"\xff\xfe\x00"), "has an unreadable cardgym.json"),
    "a number for the game": (edit_meta(set_in("game", 5)), "cardgym.json game must be a str, got 5"),
}

BROKEN_FOR_RESUMING = {
    "no optimiser state": (drop(OPTIMIZER_MEMBER), "has no policy.optimizer.pth (the optimiser state)"),
    "optimiser state of another shape": (
        edit_tensors(OPTIMIZER_MEMBER, lambda s: {**s, "state": {**s["state"], 0: {**s["state"][0], "exp_avg":
                                                                                   th.zeros(2)}}}),
        f"policy.optimizer.pth state 'exp_avg' of parameter 0 must be a torch.float32 (16, {OBS}) tensor, got "
        "torch.float32 (2,)"),
    "optimiser state with a missing entry": (
        edit_tensors(OPTIMIZER_MEMBER, lambda s: {**s, "state": {**s["state"], 1: {"step": s["state"][1]["step"]}}}),
        "state of parameter 1 must have entries exp_avg, exp_avg_sq, step"),
    "negative second moments": (
        edit_tensors(OPTIMIZER_MEMBER, lambda s: {**s, "state": {**s["state"], 1: {
            **s["state"][1], "exp_avg_sq": -s["state"][1]["exp_avg_sq"] - 1}}}),
        "state 'exp_avg_sq' of parameter 1 holds negative values"),
    "optimiser state for an unknown parameter": (
        edit_tensors(OPTIMIZER_MEMBER, lambda s: {**s, "state": {**s["state"], 99: s["state"][0]}}),
        "holds state for unknown parameter id(s) [99]"),
    "optimiser with another group count": (
        edit_tensors(OPTIMIZER_MEMBER, lambda s: {**s, "param_groups": s["param_groups"] * 2}),
        "must hold 1 parameter group(s)"),
    "optimiser state a zip bomb": (replace(OPTIMIZER_MEMBER, bytes(8 * 2**20)), "policy.optimizer.pth unpacks to "),
    "optimiser file a list": (edit_tensors(OPTIMIZER_MEMBER, lambda s: [1, 2]), "must hold an optimiser state dict"),
    "no ppo section": (edit_meta(lambda m: m.pop("ppo")), "cardgym.json lacks ppo"),
    "zero n_steps": (edit_meta(set_in("ppo", "n_steps", 0)), "ppo.n_steps must be a positive integer, got 0"),
    "gamma above one": (edit_meta(set_in("ppo", "gamma", 1.5)), "ppo.gamma must be a number in [0, 1], got 1.5"),
    "NaN learning rate": (edit_meta(set_in("ppo", "learning_rate", float("nan"))),
                          "ppo.learning_rate must be a positive number, got nan"),
    "batch_size 1": (edit_meta(set_in("ppo", "batch_size", 1)), "ppo.batch_size must be an integer of at least 2"),
    "a rollout buffer too big for memory": (edit_meta(set_in("ppo", "n_steps", 10**12)),
                                            "the PPO settings in cardgym.json cannot be used on this env: Unable to "
                                            "allocate"),
    "negative step count": (edit_meta(set_in("ppo", "num_timesteps", -5)),
                            "ppo.num_timesteps must be a non-negative integer, got -5"),
}


def broken_copy(path: Path, out: Path, breaks: Callable[[dict[str, bytes]], None]) -> Path:
    content = members(path)
    breaks(content)
    return write_zip(out, content)


@pytest.mark.parametrize("case", sorted(BROKEN_FOR_PLAYING))
def test_a_broken_model_file_is_refused_with_one_line(trained, tmp_path, case) -> None:
    breaks, fragment = BROKEN_FOR_PLAYING[case]
    broken = broken_copy(trained[1], tmp_path / "broken.zip", breaks)
    assert_one_line_refusal(lambda: PPOAgent(GAME, broken), fragment)
    assert_one_line_refusal(lambda: load_model(broken, GAME, new_env()), fragment)


@pytest.mark.parametrize("case", sorted(BROKEN_FOR_RESUMING))
def test_a_model_file_that_cannot_resume_is_refused_with_one_line(trained, tmp_path, case) -> None:
    breaks, fragment = BROKEN_FOR_RESUMING[case]
    broken = broken_copy(trained[1], tmp_path / "broken.zip", breaks)
    assert_one_line_refusal(lambda: load_model(broken, GAME, new_env()), fragment)
    if "optimiser" in case:  # cardgym train's checkpoints read the optimiser state the same way
        assert_one_line_refusal(lambda: load_trainable(broken, GAME), fragment)
    assert isinstance(PPOAgent(GAME, broken), PPOAgent)  # playing reads only the game and the policy


# ----- hypothesis: any edit gives a model or one line ------------------------------------------------------------
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**40) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
POLICY_KEYS = ["class", "net_arch", "activation_fn", "ortho_init", "features_extractor", "features_extractor_kwargs",
               "share_features_extractor", "normalize_images", "optimizer", "optimizer_kwargs", "advisor",
               "advice_gain"]
PPO_KEYS = ["learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
            "clip_range_vf", "normalize_advantage", "ent_coef", "vf_coef", "max_grad_norm", "target_kl",
            "num_timesteps", "n_updates"]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(section=st.sampled_from(["policy", "ppo", ""]), data=st.data(), value=JSON_VALUES)
def test_any_edit_of_the_metadata_gives_a_model_or_one_line(trained, tmp_path, section, data, value) -> None:
    keys = {"policy": POLICY_KEYS, "ppo": PPO_KEYS, "": ["game", "env_version", "num_players", "options",
                                                         "observation_size", "num_actions", "format", "policy",
                                                         "ppo"]}[section]
    key = data.draw(st.sampled_from(keys))
    path = set_in(section, key, value) if section else set_in(key, value)
    broken = broken_copy(trained[1], tmp_path / "edited.zip", edit_meta(path))
    try:
        model = load_model(broken, GAME, new_env())
    except ModelFileError as e:
        assert "\n" not in str(e) and str(e).startswith("model file ")
    else:  # the edit kept a valid model: it plays
        assert np.isfinite(PPOAgent(GAME, policy=model.policy).logits(observations(2))).all()


@pytest.mark.parametrize("version", ["\n", "tripoli_v1\nmore", "\x1b[2J", 5, None])
def test_an_odd_env_version_is_refused_in_one_line(trained, tmp_path, version) -> None:
    """A version that is not a printable string is shown by its repr: the refusal stays one line."""
    broken = broken_copy(trained[1], tmp_path / "edited.zip", edit_meta(set_in("env_version", version)))
    with pytest.raises(ModelFileError) as e:
        load_model(broken, GAME, new_env())
    assert "\n" not in str(e.value) and "\x1b" not in str(e.value) and repr(version)[:8] in str(e.value)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(0, 1, exclude_max=True), flip=st.integers(0, 2**31), xor=st.integers(1, 255),
       how=st.sampled_from(["truncate", "flip"]))
def test_any_damage_to_the_bytes_gives_one_line(trained, tmp_path, cut, flip, xor, how) -> None:
    raw = bytearray(trained[1].read_bytes())
    if how == "truncate":
        raw = raw[: int(cut * len(raw))]
    else:
        raw[flip % len(raw)] ^= xor
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(raw))
    try:
        agent = PPOAgent(GAME, damaged)
    except ModelFileError as e:
        assert "\n" not in str(e) and str(e).startswith("model file ")
    else:  # a flip in bytes no reader looks at (a zip comment, padding) changes nothing
        np.testing.assert_array_equal(agent.logits(observations(2)), PPOAgent(GAME, trained[1]).logits(observations(2)))
