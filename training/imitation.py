"""Imitation warm start: fit a fresh policy to a teacher agent (the magnet: the heuristic) before PPO.

PPO from a random policy spends most of a short budget learning what any card player knows (pick the best poker
hand, fold rubbish, shed low cards). Cloning the heuristic first starts PPO near the heuristic's level, so the
budget goes into improving on it. Demonstrations come from whole games on the batched core with the teacher in
*every* seat (all decisions are samples, no learner-only filtering): the actor learns the teacher's action
(cross-entropy over the legal actions) and the critic the acting seat's chips from that decision to the end of the
episode (times the reward scale PPO will use), so PPO's first advantages are meaningful too.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch as th

from agents.ppo import policy_input
from envs.core.agent import Agent
from envs.core.game import BatchedGame
from training.actor_critic import inputs, logits_and_values


def demonstrations(game: BatchedGame, teacher: Agent, seeds: np.ndarray, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play one episode per seed with ``teacher`` in every seat. Returns, per decision: the acting seat's
    observation ``(N, D)``, legal mask ``(N, A)``, the teacher's action ``(N,)`` and the seat's chips from that
    decision to the end of the episode ``(N,)``."""
    state = game.init(seeds, batch_size=len(seeds))
    chips = state.rewards.astype(np.float64, copy=True)  # (B, n) each seat's chips so far
    obs, masks, actions, tables, seats, before = [], [], [], [], [], []
    all_actions = np.zeros(len(seeds), np.int64)
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state if live.size == len(seeds) else state.take(live)
        seat = sub.current_player.copy()
        o, m = game.observe(sub, seat), sub.legal_action_mask
        a = np.asarray(teacher.act(o, m, rng), dtype=np.int64)
        obs.append(o)
        masks.append(m.copy())
        actions.append(a)
        tables.append(live)
        seats.append(seat)
        before.append(chips[live, seat])
        all_actions[live] = a
        game.step(state, all_actions)
        chips += state.rewards
    t, s = np.concatenate(tables), np.concatenate(seats)
    to_go = chips[t, s] - np.concatenate(before)
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(actions), to_go.astype(np.float32)


def imitate(policy, game: BatchedGame, teacher: Agent, decisions: int, seed: int, reward_scale: float,
            tables: int = 1024, epochs: int = 2, batch_size: int = 1024, learning_rate: float = 1e-3,
            deadline: float | None = None,
            log: Callable[[int, dict[str, float]], None] | None = None) -> dict[str, float]:
    """Fit ``policy`` (:func:`training.actor_critic.new_policy`) to ``teacher`` on about ``decisions`` teacher
    decisions, collected ``tables`` games at a time, or fewer when fewer decisions remain (a game holds at least one),
    with seeds ``seed * 2**32 + k``, apart from PPO's; each chunk is trained ``epochs`` times. Stops early at
    ``deadline`` (a ``time.perf_counter()`` value). Returns the last chunk's accuracy and losses."""
    opt = th.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    done, chunk, stats = 0, 0, {}
    base = np.uint64(2**63) + np.uint64(seed % 2**30) * np.uint64(2**32)
    while done < decisions and (deadline is None or time.perf_counter() < deadline):
        games = min(tables, decisions - done)
        seeds = base + np.arange(chunk * tables, chunk * tables + games, dtype=np.uint64)
        obs, masks, actions, to_go = demonstrations(game, teacher, seeds, rng)
        x, mask_t = inputs(policy, th.as_tensor(policy_input(policy, obs, masks))), th.as_tensor(masks)
        act_t, ret_t = th.as_tensor(actions), th.as_tensor(to_go * reward_scale)
        correct = ce_sum = v_sum = 0.0
        for _ in range(epochs):
            order = th.randperm(len(actions))
            correct = ce_sum = v_sum = 0.0
            for i in range(0, len(order), batch_size):
                mb = order[i:i + batch_size]
                logits, values = logits_and_values(policy, x[mb])
                logits = logits.masked_fill(~mask_t[mb], -1e8)
                ce = th.nn.functional.cross_entropy(logits, act_t[mb])
                v_loss = th.nn.functional.mse_loss(values, ret_t[mb])
                opt.zero_grad()
                (ce + 0.5 * v_loss).backward()
                th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                opt.step()
                correct += float((logits.argmax(1) == act_t[mb]).sum().item())
                ce_sum += ce.item() * len(mb)
                v_sum += v_loss.item() * len(mb)
        done += len(actions)
        chunk += 1
        n = len(actions)
        stats = {"decisions": done, "accuracy": correct / n, "cross_entropy": ce_sum / n, "value_loss": v_sum / n}
        if log is not None:
            log(done, stats)
    policy.set_training_mode(False)
    return stats
