"""PPO for cardgym's games in one file, in the style of CleanRL's ``ppo.py``: read it top to bottom.

    python examples/ppo_selfplay.py --game tripoli --minutes 3                  # every seat learns (self-play)
    python examples/ppo_selfplay.py --game tripoli --opponents random,heuristic # one seat against bots
    cardgym eval --game tripoli --agents ppo:runs/example/model.zip random random random --baseline random

**Every seat learning** (the default): at each step the acting seat of every table decides with the one policy.
The loop steps the batched core itself (``game.observe``, ``game.step``, ``game.redeal``), since the vector env seats
one learner per table. A seat's trajectory is its own decisions at its table; a decision's reward is that seat's
chips from it up to its next decision or the end of the episode (the others act in between and win or lose it
chips), and GAE runs along each seat's chain apart. Chips moved before a seat's first decision (the ante) follow from
no decision and are left out.

**One seat against bots** (``--opponents random,heuristic``: ``agents.registry.make_agent`` specs): one seat per
table learns on ``envs.vector.CardVectorEnv`` (auto-reset ``SAME_STEP``), whose other seats each draw a bot of the
list and play inside the env; a step's reward is the learner's chips up to its next decision (the ante in the first).

Either way a decision whose successor is not made when a rollout ends is carried into the next rollout (its chips
keep adding up), not cut: the update trains on every decision whose return is known up to the value of its seat's
next decision. A truncated episode (Flip Flop's step limit) ends like a finished one; ``gamma`` is 1 (an episode is
short and its chips are what counts). A masked categorical policy, GAE and CleanRL's clipped loss.

The network and the model file are the project's: ``training.actor_critic.new_policy`` builds the network of every
cardgym model (a symlog-scaled input layer shared by actor and critic, then ``net_arch`` in each head; its class is
sb3-contrib's policy, but this file only calls its layers as torch modules), and ``agents.ppo.save_policy`` writes it
as a model file of data (JSON and weights-only tensors, no pickle) that ``ppo:PATH`` loads and ``cardgym eval`` plays.
A network of our own would need a converter to that layout; reusing it keeps this file short and the saved model
exactly what the project loads. At the end the model plays ``--eval-opponent`` beside the policy it started from on
the same duplicate deals, and the difference is printed with its 95% interval.
"""
from __future__ import annotations

import copy
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agents.registry import make_agent
from envs.core.extras import needs_extra
from envs.registry import make_game
from envs.vector import CardVectorEnv
from training.evaluate import advantage, evaluate

with needs_extra("examples/ppo_selfplay.py", error=SystemExit):  # torch, sb3-contrib and tyro: cardgym[train]
    import torch
    import tyro

    from agents.ppo import PPOAgent, save_policy
    from training.actor_critic import new_policy


@dataclass
class Args:
    """PPO on a cardgym game, self-play or one seat against bots (the field total_decisions is --total-decisions)."""

    game: Literal["tripoli", "triolet", "flipflop"] = "tripoli"
    """the game"""
    players: int = 4
    """players at each table"""
    opponents: str = ""
    """comma-separated bots for every seat but the learner's; empty: every seat learns (self-play)"""
    seed: int = 1
    """seed of the deals, the network's initial weights and the sampling"""
    total_decisions: int = 3_000_000
    """learner decisions to train on (at most)"""
    minutes: float = 0.0
    """wall-clock budget of the training in minutes (0: none); training stops at this or total_decisions"""
    num_tables: int = 256
    """tables played at once"""
    num_steps: int = 32
    """steps of every table per rollout (a batch holds about num_tables * num_steps decisions)"""
    learning_rate: float = 3e-4
    """the learning rate of Adam"""
    anneal_lr: bool = True
    """let the learning rate fall linearly to 0 over the run"""
    gamma: float = 1.0
    """the discount factor"""
    gae_lambda: float = 0.95
    """the lambda of the general advantage estimation"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each batch"""
    norm_adv: bool = True
    """normalise the advantages within each minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = False
    """clip the value loss too (CleanRL's default is True; chip returns move the value by more than clip_coef)"""
    ent_coef: float = 0.01
    """coefficient of the entropy bonus"""
    vf_coef: float = 0.5
    """coefficient of the value loss"""
    max_grad_norm: float = 0.5
    """the maximum norm of the gradient"""
    target_kl: float | None = None
    """stop an update's epochs once the approximate KL exceeds this"""
    reward_scale: float | None = None
    """rewards are chips (points, stakes) times this; default 0.1 in Tripoli (chips), 1 in the others"""
    features_dim: int = 256
    """units of the shared input layer"""
    net_arch: tuple[int, ...] = (128,)
    """hidden layers of the policy head and of the value head"""
    threads: int = 1
    """torch threads"""
    out: str = "runs/example"
    """folder of model.zip"""
    eval_deals: int = 2000
    """deals of the closing evaluation (0: none)"""
    eval_opponent: str = "random"
    """the bot at the other seats in the closing evaluation"""


class Rollout:
    """One batch of decisions as ``(rows, tables)`` arrays. Rows ``0..S-1`` hold the decisions carried over from the
    last batch (row ``s``: the open decision of seat ``s`` at each table, if any; ``S`` seats are tracked, 1 with
    bots), the other rows one step of every table each. ``last[table, seat]`` is the row of the seat's latest decision
    in the current episode (-1: none yet): the seat's chips go to it until it decides again."""

    def __init__(self, seats: int, steps: int, tables: int, obs_size: int, num_actions: int) -> None:
        rows, self.seats, self.tables = seats + steps, seats, np.arange(tables)
        self.obs = np.zeros((rows, tables, obs_size), np.float32)
        self.mask = np.zeros((rows, tables, num_actions), bool)
        self.action, self.seat = np.zeros((rows, tables), np.int64), np.zeros((rows, tables), np.int64)
        self.logprob, self.value = np.zeros((rows, tables), np.float32), np.zeros((rows, tables), np.float32)
        self.reward, self.done = np.zeros((rows, tables), np.float32), np.zeros((rows, tables), bool)
        self.present = np.zeros((rows, tables), bool)
        self.last = np.full((tables, seats), -1, np.int64)

    def record(self, row: int, obs: np.ndarray, mask: np.ndarray, seat: np.ndarray, out: dict[str, np.ndarray]) -> None:
        """Store one decision of every table at ``row`` and make it its seat's latest."""
        self.obs[row], self.mask[row], self.seat[row], self.present[row] = obs, mask, seat, True
        self.action[row], self.logprob[row], self.value[row] = out["action"], out["logprob"], out["value"]
        self.reward[row], self.done[row] = 0.0, False
        self.last[self.tables, seat] = row

    def credit(self, rewards: np.ndarray) -> None:
        """Add ``(tables, seats)`` chips to each seat's latest decision (none before its first one)."""
        has = self.last >= 0
        self.reward[self.last[has], np.nonzero(has)[0]] += rewards[has]

    def end(self, tables: np.ndarray) -> None:
        """The episodes at ``tables`` ended: each seat's latest decision there was its last."""
        rows = self.last[tables]
        has = rows >= 0
        self.done[rows[has], np.repeat(tables, self.seats)[has.ravel()]] = True
        self.last[tables] = -1

    def carry(self) -> None:
        """Move every open decision (its seat has not decided again, its episode goes on) to rows ``0..S-1``."""
        for s in range(self.seats):
            src, keep = self.last[:, s], self.last[:, s] >= 0
            for arr in (self.obs, self.mask, self.action, self.logprob, self.value, self.reward):
                arr[s] = arr[np.maximum(src, 0), self.tables]  # fancy indexing copies before the row is written
            self.seat[s], self.done[s], self.present[s] = s, False, keep
            self.last[keep, s] = s


def seat_gae(r: Rollout, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's own chain of decisions at each table, rows in reverse. Returns the advantages and which
    decisions have one: those ending their episode and those whose seat decided again (bootstrapped from that
    decision's value, and cut there if that one is still open, as GAE is at the end of any rollout)."""
    rows, tables = r.reward.shape
    adv, known = np.zeros((rows, tables), np.float32), np.zeros((rows, tables), bool)
    next_value, next_adv = np.zeros((tables, r.seats), np.float32), np.zeros((tables, r.seats), np.float32)
    has_next = np.zeros((tables, r.seats), bool)
    t = r.tables
    for row in reversed(range(rows)):
        s, live = r.seat[row], 1.0 - r.done[row]
        delta = r.reward[row] + gamma * next_value[t, s] * live - r.value[row]
        known[row] = r.present[row] & (r.done[row] | has_next[t, s])
        adv[row] = np.where(known[row], delta + gamma * lam * live * next_adv[t, s], 0.0)
        here = r.present[row]
        next_value[t[here], s[here]] = r.value[row, here]
        next_adv[t[here], s[here]] = adv[row, here]
        has_next[t[here], s[here]] = True
    return adv, known


def forward(policy: torch.nn.Module, obs: torch.Tensor, mask: torch.Tensor) -> tuple[Any, torch.Tensor]:
    """The masked categorical distribution over actions and the value of each observation (the network's layers:
    the shared input layer, each head's hidden layers, then the action logits and the value)."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.features_extractor(obs))
    logits = policy.action_net(latent_pi).masked_fill(~mask, -1e9)
    return torch.distributions.Categorical(logits=logits), policy.value_net(latent_vf).squeeze(-1)


@torch.no_grad()
def act(policy: torch.nn.Module, obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """Sample one action per row; its log-probability and the value."""
    dist, value = forward(policy, torch.from_numpy(obs), torch.from_numpy(mask))
    action = dist.sample()
    return {"action": action.numpy(), "logprob": dist.log_prob(action).numpy(), "value": value.numpy()}


class SelfPlay:
    """Every seat of ``num_tables`` tables of the core plays the policy; a finished table is dealt again at once."""

    def __init__(self, game: Any, args: Args, scale: float) -> None:
        self.game, self.scale, self.rng = game, scale, np.random.default_rng(args.seed)
        self.state = game.init(self.seeds(args.num_tables))
        self.deal(np.flatnonzero(self.state.done))
        self.episodes, self.returns = 0, deque()  # every seat is the learner: no return against a field to show

    def seeds(self, k: int) -> np.ndarray:
        """``k`` table seeds from the run's generator."""
        return self.rng.integers(0, 2**63, size=k, dtype=np.uint64)

    def deal(self, tables: np.ndarray) -> None:
        """Deal ``tables`` again (again while a deal ends before anyone decides)."""
        while tables.size:
            self.game.redeal(self.state, tables, self.seeds(tables.size))
            tables = tables[self.state.done[tables]]

    def step(self, policy: torch.nn.Module, buf: Rollout, row: int) -> None:
        """Every table's acting seat decides (stored at ``row``); every seat's chips of the step go to its latest
        decision; finished tables end their seats' chains and are dealt again."""
        seat = self.state.current_player.copy()
        obs, mask = self.game.observe(self.state, seat), self.state.legal_action_mask.copy()
        out = act(policy, obs, mask)
        self.game.step(self.state, out["action"])
        buf.record(row, obs, mask, seat, out)
        buf.credit(self.state.rewards.astype(np.float32) * self.scale)
        ended = np.flatnonzero(self.state.done)
        if ended.size:
            buf.end(ended)
            self.episodes += ended.size
            self.deal(ended)


class AgainstBots:
    """One learner seat per table of ``CardVectorEnv``; the bots of ``args.opponents`` play the other seats."""

    def __init__(self, game: Any, args: Args, scale: float) -> None:
        bots = [make_agent(spec.strip(), game) for spec in args.opponents.split(",")]
        self.env = CardVectorEnv(game, args.num_tables, bots, reward_scale=scale, autoreset_mode="SameStep")
        self.obs, _ = self.env.reset(seed=args.seed)
        self.episodes, self.returns = 0, deque(maxlen=2000)  # the latest episodes' chips

    def step(self, policy: torch.nn.Module, buf: Rollout, row: int) -> None:
        """Every table's learner decides (stored at ``row``); the env's reward goes to that decision."""
        obs, mask = self.obs["observation"], self.obs["action_mask"].astype(bool)
        out = act(policy, obs, mask)
        self.obs, reward, terminated, truncated, info = self.env.step(out["action"])
        buf.record(row, obs, mask, np.zeros(len(reward), np.int64), out)
        buf.credit(reward[:, None])
        buf.end(np.flatnonzero(terminated | truncated))
        if "episode" in info:
            self.returns.extend(info["episode"]["r"][info["_episode"]].tolist())  # chips, unscaled
            self.episodes += int(info["_episode"].sum())


def main(args: Args) -> dict[str, Any]:
    """Train, save ``args.out/model.zip`` and return what the run measured."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    game = make_game(args.game, num_players=args.players)
    scale = args.reward_scale if args.reward_scale is not None else (0.1 if args.game == "tripoli" else 1.0)
    policy = new_policy(game, args.features_dim, args.net_arch, args.seed)
    initial = copy.deepcopy(policy)
    optimizer = policy.optimizer  # Adam (eps 1e-5); saved with the model
    tables = AgainstBots(game, args, scale) if args.opponents else SelfPlay(game, args, scale)
    seats = 1 if args.opponents else game.num_players
    buf = Rollout(seats, args.num_steps, args.num_tables, game.observation_size, game.num_actions)
    decisions, start, update, progress = 0, time.time(), 0, 0.0
    while progress < 1.0:
        update += 1
        optimizer.param_groups[0]["lr"] = (1.0 - progress if args.anneal_lr else 1.0) * args.learning_rate
        for step in range(args.num_steps):
            tables.step(policy, buf, seats + step)
        decisions += args.num_steps * args.num_tables
        advantages, known = seat_gae(buf, args.gamma, args.gae_lambda)

        # flatten the decisions whose advantage is known
        idx = np.flatnonzero(known.ravel())
        b_obs = torch.from_numpy(buf.obs.reshape(-1, game.observation_size)[idx])
        b_mask = torch.from_numpy(buf.mask.reshape(-1, game.num_actions)[idx])
        b_actions = torch.from_numpy(buf.action.ravel()[idx])
        b_logprobs = torch.from_numpy(buf.logprob.ravel()[idx])
        b_advantages = torch.from_numpy(advantages.ravel()[idx])
        b_values = torch.from_numpy(buf.value.ravel()[idx])
        b_returns = b_advantages + b_values

        # optimise the policy and value network (CleanRL's update, with the legal-action masks)
        for _epoch in range(args.update_epochs):
            for mb in torch.randperm(idx.size).tensor_split(args.num_minibatches):
                dist, newvalue = forward(policy, b_obs[mb], b_mask[mb])
                logratio = dist.log_prob(b_actions[mb]) - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                mb_adv = b_advantages[mb]
                if args.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                clipped = ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * clipped).mean()
                if args.clip_vloss:
                    v_clipped = b_values[mb] + (newvalue - b_values[mb]).clamp(-args.clip_coef, args.clip_coef)
                    v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl is not None and approx_kl > args.target_kl:
                break
        buf.carry()

        elapsed = time.time() - start
        progress = decisions / args.total_decisions
        if args.minutes > 0:
            progress = max(progress, elapsed / (60 * args.minutes))
        var_y = float(b_returns.var())
        explained = float("nan") if var_y == 0 else 1 - float((b_returns - b_values).var()) / var_y
        recent = f" return {np.mean(tables.returns):+.2f}" if tables.returns else ""
        print(f"update {update} decisions {decisions:,} ({decisions / elapsed:,.0f}/s) episodes {tables.episodes:,}"
              f"{recent} entropy {entropy.item():.3f} kl {approx_kl.item():.4f} value loss {v_loss.item():.3f} "
              f"explained var {explained:.2f}", flush=True)

    path = save_policy(policy, Path(args.out) / "model.zip", game, extra={"example": {
        "script": "examples/ppo_selfplay.py", "opponents": args.opponents or "self-play", "decisions": decisions}})
    print(f"saved {path} ({decisions:,} decisions in {time.time() - start:.0f} s)")
    result: dict[str, Any] = {"path": path, "decisions": decisions, "seconds": time.time() - start}
    if args.eval_deals:
        field = [make_agent(args.eval_opponent, game) for _ in range(game.num_players - 1)]
        trained = evaluate(game, [make_agent(f"ppo:{path}", game), *field], args.eval_deals, args.seed)
        before = evaluate(game, [PPOAgent(game, policy=initial), *field], args.eval_deals, args.seed)
        gain, half = advantage(trained, before)
        print(f"against {args.eval_opponent} ({trained.episodes:,} duplicate deals, 95% intervals, {trained.unit}): "
              f"model {trained.mean[0]:+.3f} ± {trained.ci95[0]:.3f}, its initial policy {before.mean[0]:+.3f} ± "
              f"{before.ci95[0]:.3f}, gain {gain:+.3f} ± {half:.3f} (paired)")
        result.update(model=float(trained.mean[0]), model_ci95=float(trained.ci95[0]), initial=float(before.mean[0]),
                      gain=gain, gain_ci95=half)
    return result


if __name__ == "__main__":
    main(tyro.cli(Args))
