"""The learner's pieces: GAE along each seat's own trajectory, the rollout's trajectories on a real core, masked
sampling and the magnet's KL term (training/advantages.py, training/rollout.py, training/actor_critic.py,
training/magnet.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th

from agents.registry import make_agent
from envs.registry import make_game
from training.actor_critic import inputs, mask_logits, masked_log_probs, new_policy, sample
from training.advantages import seat_gae
from training.magnet import AgentMagnet, magnet_kl
from training.rollout import Rollout
from training.sparse_rows import SparseRows

# One table, two seats taking turns: rows 0, 2, 4 are seat A's (4 ends the episode), rows 1, 3 seat B's (3 is still
# open: B has not decided again yet).
REWARD = np.array([1.0, -2.0, 0.0, 7.0, 5.0])
VALUE = np.array([0.5, 1.0, 2.0, 3.0, 4.0], np.float32)
DONE = np.array([False, False, False, False, True])
NEXT = np.array([2, 3, 4, -1, -1])


def test_gae_per_seat_on_a_hand_made_trajectory():
    adv, resolved = seat_gae(REWARD, VALUE, DONE, NEXT, gamma=0.9, lam=0.5)
    # seat A: row 4 ends the episode: 5 - 4; row 2: (0 + 0.9*4 - 2) + 0.9*0.5*1; row 0: (1 + 0.9*2 - 0.5) + 0.45*2.05
    # seat B: row 1 bootstraps from the open row 3's value: -2 + 0.9*3 - 1 (row 3 has no advantage yet)
    assert resolved.tolist() == [True, True, True, False, True]
    np.testing.assert_allclose(adv, [3.2225, -0.3, 2.05, 0.0, 1.0], rtol=1e-6)


def test_a_seats_rewards_never_reach_another_seats_advantages():
    adv, _ = seat_gae(REWARD, VALUE, DONE, NEXT, gamma=0.9, lam=0.5)
    other = REWARD.copy()
    other[[1, 3]] = [100.0, -50.0]  # seat B's rewards only
    changed, _ = seat_gae(other, VALUE, DONE, NEXT, gamma=0.9, lam=0.5)
    np.testing.assert_array_equal(changed[[0, 2, 4]], adv[[0, 2, 4]])
    assert changed[1] != adv[1]


def recorded_game(name: str):
    """A game whose ``init`` and ``step`` log every seat's rewards and the finished tables (``(rewards, done)``),
    and whose ``redeal`` logs the tables dealt again (``("redeal", tables)``)."""
    game = make_game(name, num_players=4)
    log: list[tuple] = []
    init, step, redeal = game.init, game.step, game.redeal

    def logged_init(*args, **kwargs):
        state = init(*args, **kwargs)
        log.append((state.rewards.copy(), state.done.copy()))
        return state

    def logged_step(*args, **kwargs):
        state = step(*args, **kwargs)
        log.append((state.rewards.copy(), state.done.copy()))
        return state

    def logged_redeal(state, tables, seeds=None):
        log.append(("redeal", np.asarray(tables)))
        return redeal(state, tables, seeds)

    game.init, game.step, game.redeal = logged_init, logged_step, logged_redeal
    return game, log


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_every_seat_s_trajectory_holds_its_own_chips(name):
    """Each seat's decisions are linked to its own next decision at its own table, and the rewards along a seat's
    trajectory in a table's first episode add up to that seat's chips in it (every seat a learner)."""
    game, log = recorded_game(name)
    tables, scale = 6, 0.5
    policy = new_policy(game, 16, (8,), seed=0)
    rollout = Rollout(game, tables, 60, policy, reward_scale=scale, seed=3)
    rows = rollout.collect()
    a = rows.arrays()
    linked = np.flatnonzero(a["next"] >= 0)
    assert (a["next"][linked] > linked).all()
    assert (a["table"][a["next"][linked]] == a["table"][linked]).all()
    assert (a["seat"][a["next"][linked]] == a["seat"][linked]).all()
    # each table's chips in its first episode, from the core's own log
    chips, first_end = np.zeros((tables, 4)), np.full(tables, -1)
    step = -1
    for entry in log:
        if isinstance(entry[0], str):
            continue
        rewards, done = entry
        live = first_end < 0
        chips[live] += rewards[live]
        newly = live & done
        first_end[newly] = step
        step += 1
    checked = 0
    for t in range(tables):
        if first_end[t] < 0:
            continue
        for s in range(4):
            first = np.flatnonzero((a["table"] == t) & (a["seat"] == s))
            if not first.size or first[0] // tables > first_end[t]:
                continue  # the seat had no decision in the table's first episode
            chain, total = first[0], 0.0
            while True:
                total += a["reward"][chain]
                if a["done"][chain]:
                    break
                chain = a["next"][chain]
            assert total == pytest.approx(chips[t, s] * scale), (t, s)
            checked += 1
    assert checked >= tables, checked


def test_open_decisions_carry_over_to_the_next_collection():
    game = make_game("tripoli", num_players=4)
    rollout = Rollout(game, 4, 5, new_policy(game, 16, (8,), seed=0), seed=1)
    rows = rollout.collect()
    opened = rows.arrays()
    still = np.flatnonzero(~opened["done"] & (opened["next"] < 0))
    kept = {(int(opened["table"][i]), int(opened["seat"][i]), int(opened["action"][i])) for i in still}
    rows = rollout.collect()
    assert rollout.carried == len(kept)
    again = rows.arrays()
    assert {(int(again["table"][i]), int(again["seat"][i]), int(again["action"][i]))
            for i in range(rollout.carried)} == kept
    assert rows.size == rollout.carried + 4 * 5


def test_opponent_seats_make_no_learner_decisions():
    game, log = recorded_game("tripoli")
    rollout = Rollout(game, 8, 20, new_policy(game, 16, (8,), seed=0), opponents=[make_agent("random", game)],
                      opponent_share=0.75, seed=2)
    seating = rollout.learner.copy()
    assert seating.any(axis=1).all() and not seating.all()
    rows = rollout.collect().arrays()
    assert 0 < len(rows["seat"]) < 8 * 20
    redealt = {int(t) for entry in log if isinstance(entry[0], str) for t in entry[1]}
    kept = ~np.isin(rows["table"], sorted(redealt))
    assert kept.sum() > 20
    assert seating[rows["table"][kept], rows["seat"][kept]].all()
    assert (rows["mask"][np.arange(len(rows["action"])), rows["action"]]).all()


def test_pool_weights_seat_new_tables_and_an_agent_that_leaves_keeps_its_seats():
    game = make_game("tripoli", num_players=4)
    a, b, c = (make_agent(name, game) for name in ("random", "heuristic", "tight"))
    rollout = Rollout(game, 64, 4, new_policy(game, 16, (8,), seed=0), opponents=[a, b], weights=[0.0, 1.0],
                      opponent_share=0.75, seed=3)
    seated = ~rollout.learner
    assert seated.any() and (rollout.agent_of[seated] == 1).all()  # weight 0: random never seated
    rollout.set_opponents([c], [1.0])  # the heuristic leaves the pool while it holds seats
    assert rollout.opponents[:2] == [c, b] and list(rollout.weights) == [1.0, 0.0]
    assert (rollout.agent_of[seated] == 1).all()  # its seats still point at it
    rollout.collect()  # tables dealt from now on draw tight; the old seats play on with the heuristic
    now = ~rollout.learner
    assert set(np.unique(rollout.agent_of[now])) <= {0, 1}
    with pytest.raises(ValueError, match="one finite non-negative number per opponent"):
        rollout.set_opponents([c], [-1.0])


def test_the_advisor_is_an_input_the_policy_sees_and_a_model_file_records(tmp_path):
    from agents.ppo import PPOAgent, policy_input, read_metadata, save_policy

    game = make_game("flipflop", num_players=4)
    policy = new_policy(game, 16, (8,), seed=0, advisor="heuristic")
    assert policy.features_extractor.linear.in_features == game.observation_size + game.num_actions
    rng = np.random.default_rng(1)
    state = game.init(np.arange(8, dtype=np.uint64))
    obs, mask = game.observe(state, state.current_player), state.legal_action_mask
    advised = policy_input(policy, obs, mask)
    chosen = make_agent("heuristic", game).act(obs, mask, rng)
    assert (advised[:, :game.observation_size] == obs).all()
    advice = advised[:, game.observation_size:]
    assert (advice.argmax(axis=1) == chosen).all() and advice.sum() == 8
    path = save_policy(policy, tmp_path / "advised.zip", game)
    assert read_metadata(path)["policy"]["advisor"] == "heuristic"
    agent = PPOAgent(game, path)
    np.testing.assert_allclose(agent.logits(obs, mask), PPOAgent(game, policy=policy).logits(obs, mask), atol=1e-6)
    with pytest.raises(ValueError, match="needs the legal actions"):
        agent.logits(obs)


def test_the_advice_gain_adds_a_learned_number_to_the_advised_logit_and_travels_with_the_policy(tmp_path):
    """The same network with and without an advice gain differs only by the gain at each row's advised action,
    whether its inputs come dense, as a CSR matrix or as a learner's minibatch; the gain is trained by the policy's
    optimiser, kept by a frozen copy, written to the model file and read back for playing and resuming."""
    from agents.ppo import PPOAgent, frozen_copy, load_trainable, policy_input, read_metadata, save_policy
    from training.actor_critic import logits_and_values

    game = make_game("flipflop", num_players=4)
    plain = new_policy(game, 16, (8,), seed=0, advisor="patient")
    gained = new_policy(game, 16, (8,), seed=0, advisor="patient", advice_gain=True)
    with th.no_grad():
        gained.advice_gain.gain.fill_(2.5)
    state = game.init(np.arange(64, dtype=np.uint64))
    obs, mask = game.observe(state, state.current_player), state.legal_action_mask
    x = inputs(plain, th.as_tensor(policy_input(plain, obs, mask)))
    advised = make_agent("patient", game).act(obs, mask, np.random.default_rng(0))
    with th.no_grad():
        base, _ = logits_and_values(plain, x)
        want = base.numpy().copy()
        want[np.arange(64), advised] += 2.5
        rows = np.arange(64)
        for given in (x, x.to_sparse_csr(), SparseRows(x.numpy()).take(rows)):
            np.testing.assert_allclose(logits_and_values(gained, given)[0].numpy(), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(logits_and_values(frozen_copy(gained), x)[0].numpy(), want, rtol=1e-5, atol=1e-5)
    assert any(p is gained.advice_gain.gain for group in gained.optimizer.param_groups for p in group["params"])
    path = save_policy(gained, tmp_path / "gained.zip", game)
    assert read_metadata(path)["policy"]["advice_gain"] is True
    assert "advice_gain" not in read_metadata(save_policy(plain, tmp_path / "plain.zip", game))["policy"]
    np.testing.assert_allclose(PPOAgent(game, path).logits(obs, mask), want, rtol=1e-5, atol=1e-5)
    resumed, _ = load_trainable(path, game)
    assert float(resumed.advice_gain.gain) == 2.5


def test_masked_sampling_never_picks_an_illegal_action():
    gen = th.Generator().manual_seed(0)
    rng = np.random.default_rng(0)
    mask = rng.random((5000, 12)) < 0.3
    mask[np.arange(5000), rng.integers(12, size=5000)] = True
    logits = th.from_numpy(rng.normal(size=(5000, 12)).astype(np.float32))
    logits[th.from_numpy(~mask)] = 60.0  # illegal actions the network likes best
    chosen = sample(masked_log_probs(logits, th.from_numpy(mask)), gen).numpy()
    assert mask[np.arange(5000), chosen].all()
    single = np.flatnonzero(mask.sum(axis=1) == 1)
    assert (chosen[single] == mask[single].argmax(axis=1)).all()


def test_the_agent_magnet_is_a_distribution_over_legal_actions_that_favours_the_agent():
    game = make_game("tripoli", num_players=4)
    state = game.init(0, 64)
    obs, mask = game.observe(state, state.current_player), state.legal_action_mask
    heuristic = make_agent("heuristic", game)
    ref = AgentMagnet(heuristic, 0.9).log_probs(obs, mask, np.random.default_rng(0))
    probs = np.where(mask, np.exp(ref), 0.0)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    chosen = heuristic.act(obs, mask, np.random.default_rng(0))
    several = mask.sum(axis=1) > 1
    np.testing.assert_allclose(probs[np.arange(64), chosen][several], 0.9, rtol=1e-5)


def kl(logits, reference, mask):
    """The magnet's mean KL term for a policy of ``logits`` (as the PPO loss computes it)."""
    masked = mask_logits(logits, mask)
    return magnet_kl(th.softmax(masked, dim=1), th.log_softmax(masked, dim=1), reference, mask).mean()


def test_the_magnet_term_is_zero_at_the_reference_and_pulls_towards_it():
    rng = np.random.default_rng(1)
    mask = th.from_numpy(rng.random((32, 7)) < 0.6)
    mask[:, 0] = True
    reference = masked_log_probs(th.from_numpy(rng.normal(size=(32, 7)).astype(np.float32)) * 3, mask)
    same = magnet_kl(reference.exp(), reference, reference, mask)
    assert th.allclose(same, th.zeros(32), atol=1e-6)
    logits = th.zeros(32, 7, requires_grad=True)
    start = kl(logits, reference, mask)
    (start * 32).backward()  # each row's own gradient
    with th.no_grad():
        moved = logits - 1.0 * logits.grad
    after = kl(moved, reference, mask)
    assert float(start.detach()) > 0.05 and float(after) < 0.8 * float(start.detach())
    favourite = reference.argmax(dim=1)
    before_p = masked_log_probs(logits.detach(), mask).exp().gather(1, favourite[:, None])
    after_p = masked_log_probs(moved, mask).exp().gather(1, favourite[:, None])
    assert (after_p > before_p).all()


def test_sparse_and_dense_rollouts_make_the_same_decisions():
    game = make_game("triolet", num_players=4)
    made = []
    for sparse in (True, False):
        rollout = Rollout(game, 16, 12, new_policy(game, 32, (8,), seed=0), sparse=sparse, seed=5)
        made.append(rollout.collect().arrays())
    np.testing.assert_array_equal(made[0]["action"], made[1]["action"])
    np.testing.assert_array_equal(made[0]["inputs"], made[1]["inputs"])
    np.testing.assert_allclose(made[0]["logprob"], made[1]["logprob"], rtol=1e-4, atol=1e-5)


def test_sparse_rows_give_the_dense_rows_and_the_same_input_layer():
    game = make_game("flipflop", num_players=4)
    state = game.init(4, 256)
    policy = new_policy(game, 32, (8,), seed=0)
    obs = game.observe(state, state.current_player)
    dense = inputs(policy, th.from_numpy(obs)).numpy()
    np.testing.assert_array_equal(inputs(policy, SparseRows(obs).matrix()).to_dense().numpy(), dense)
    rows = np.random.default_rng(0).permutation(256)[:100]
    sparse = SparseRows(dense).take(rows)
    np.testing.assert_array_equal(sparse.matrix.to_dense().numpy(), dense[rows])
    np.testing.assert_array_equal(sparse.transposed.to_dense().numpy(), dense[rows].T)
    layer = policy.features_extractor.layer
    grads = []
    for x in (sparse, th.from_numpy(dense[rows])):
        policy.zero_grad()
        out = layer(x)
        (out ** 2).sum().backward()  # the minibatch's own backward gives the dense layer's gradients
        grads.append((out.detach().numpy(), policy.features_extractor.linear.weight.grad.numpy().copy(),
                      policy.features_extractor.linear.bias.grad.numpy().copy()))
    for got, want in zip(*grads, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
