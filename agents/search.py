"""``search``: Monte-Carlo search over determinisations (perfect-information Monte-Carlo), for any game with a
sampler (Tripoli, Le triolet with one deck and Flip Flop; :data:`SAMPLERS`).

At each decision with more than one legal action:

1. **Sample.** Draw deals consistent with what the seat knows — its :class:`~envs.seatview.SeatView`, never the
   state — with the game's sampler (``envs/<game>/sampler.py``: a constraint model of the unseen cards, then a replay
   of the deal that keeps a deal only if the seat would have seen exactly what it saw).
2. **Try every candidate.** Every sampled deal is cloned once per candidate action; each clone plays its candidate
   and then the rest of the deal with the rollout policy at the seat's own place (the game's best hand-written bot;
   compiled for Tripoli, :mod:`agents.tripoli_rollout`, Le triolet, :mod:`envs.triolet.rollout`, and Flip Flop,
   :mod:`envs.flipflop.policy`) and each other seat's *model* at theirs. All samples × candidates of all the tables
   of a call are one batch.
3. **Choose** the candidate with the highest mean result — the seat's chips (stakes in Flip Flop) won from now to the
   end of the deal, over the same sampled deals for every candidate — if it beats the rollout policy's own choice by
   more than :data:`SWITCH_Z` standard errors of the paired difference (in the games of :data:`FAMILY_WISE`, more
   than :func:`switch_z` of the number of candidates: the best of many candidates no better than the policy's
   choice often beats it by one standard error); else the policy's choice.

**The other seats' models** (where the game's bots are compiled: Tripoli, Flip Flop, and Le triolet's styles that
play by their priorities, :data:`TRIOLET_STYLES`). Each other seat is taken to play one of the zoo's styles or random
moves; the sampler's replays measure how often each style, in that seat's place in a sampled deal, would have taken
each public action it took, and :func:`type_posterior` turns that into a posterior per seat (prior: random play 0.1).
Every sampled deal draws each seat's model from its posterior. Against the zoo's styles the models stay on the
styles; against random players they move to random play as the deal goes on.

**What is searched.** Decisions whose rollout-policy choice is of a kind in :data:`NOT_SEARCHED` (Tripoli's poker
selection) are left to the rollout policy, and those of a kind in :data:`GATED` (Tripoli's betting) are searched only
when the other seats look random (:data:`GATE_RANDOM`): both lost chips when searched against players who bet their
strong hands, because the sampled hands ignore what the bets say (``infer=True`` weighs the sampled deals by the bets'
likelihood instead; measured weaker, off by default).

**Budget** (the spec): ``search`` is ``search:200``; ``search:N`` spends about ``N`` playouts per decision (1 to
100,000): ``ceil(N / candidates)`` sampled deals, each played once per candidate; ``search:Nms`` searches for about
``N`` milliseconds per decision (1 to 60,000), in rounds of 16 deals, at least one round (a time budget makes the
choice depend on the machine's speed: results do not repeat exactly). **Candidates**: every legal action, except
that an action kind with many sizes (Tripoli's ``bet k``, ``raise k``, ``bid k``) keeps six sizes spread over its
range and the rollout policy's choice.

The seat falls back on the rollout policy's choice where it cannot search: a configuration the sampler does not
cover (``unsupported``), or a decision where no sampled deal reproduced the view. ``stats`` counts decisions,
fallbacks, drawn and kept deals (the acceptance rate) and the time spent.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from typing import Any

import numpy as np

from envs.core.agent import AgentBase
from envs.core.game import BatchedGame, action_kind
from envs.seatview import SeatView, deal_index

DEFAULT_PLAYOUTS = 200
MAX_PLAYOUTS = 100_000
MAX_MS = 60_000
ROUND_WORLDS = 16
"""Sampled deals per round with a time budget."""
SIZE_KINDS_KEPT = 6
"""Sizes kept of an action kind with more (``bet k``: 1 … bet_limit)."""

ROLLOUT = {"tripoli": "longsuit", "triolet": "heuristic", "flipflop": "heuristic"}
"""The rollout policy of each game: its best hand-written bot."""
SAMPLERS = {"tripoli": "envs.tripoli.sampler:TripoliSampler", "flipflop": "envs.flipflop.sampler:FlipFlopSampler",
            "triolet": "envs.triolet.sampler:TrioletSampler"}
"""The sampler of each game that has one."""
NOT_SEARCHED = {"tripoli": ("select",)}
"""Action kinds each game leaves to the rollout bot: Tripoli's poker selection (T12), whose search lost about 12
chips a deal against random players and gained about 1 against longsuit (300 duplicate deals each)."""
GATED = {"tripoli": ("bet", "raise", "call", "fold", "check")}
"""Action kinds each game searches only when the other seats look random (their mean posterior probability of
random play at least :data:`GATE_RANDOM`): Tripoli's betting, where sampling the other hands regardless of their
bets makes the search call and bet too much against players who bet their strong hands (searching every bet lost
about 2 chips a deal against the heuristic and aggressive fields, 800 duplicate deals each), and won much against
random players. The gate keeps most of the first and gives up most of the second (the random field's advantage
fell from about +13 to +2.4, the aggressive field's rose from +0.6 to +2.9)."""
GATE_RANDOM = 0.35
OVERSAMPLE = 2
"""Deals drawn per deal played when the draws are weighed by the other seats' likelihood (``infer``)."""
SWITCH_Z = 1.0
"""The search leaves the rollout policy's choice only for a candidate whose mean gain over it, paired over the same
sampled deals, is more than this many standard errors: among several candidates with close means the largest is
often the luckiest (measured: searching Flip Flop's discards without it lost 0.15 stakes a deal to the heuristic)."""

FAMILY_WISE = ("flipflop",)
"""Games whose search leaves the rollout policy's choice only for a candidate that beats it by :func:`switch_z`
standard errors, a bar that rises with the number of candidates."""


def switch_z(candidates: int) -> float:
    """The standard errors by which the best of ``candidates`` (the rollout policy's choice among them) must beat the
    policy's choice for the search to switch, so that when no candidate is better the chance of a switch is the
    chance that one candidate passes :data:`SWITCH_Z` (Šidák: each of the ``candidates - 1`` others is held to a
    tail of ``1 - (1 - p) ** (1 / (candidates - 1))``, ``p`` the tail beyond :data:`SWITCH_Z`)."""
    others = max(candidates - 1, 1)
    normal = statistics.NormalDist()
    tail = 1.0 - normal.cdf(SWITCH_Z)
    return normal.inv_cdf((1.0 - tail) ** (1.0 / others))


class BudgetError(ValueError):
    """A search budget that is not one (one line)."""


def parse_budget(text: str) -> tuple[int | None, float | None]:
    """``(playouts, None)`` or ``(None, milliseconds)`` from the part of a spec after ``search:`` (``"200"``,
    ``"50ms"``); :class:`BudgetError` with one line otherwise."""
    allowed = (f"search:N with N playouts per decision (1 to {MAX_PLAYOUTS:,}) or search:Nms with N milliseconds "
               f"per decision (1 to {MAX_MS:,}), e.g. search:200 or search:50ms")
    m = re.fullmatch(r"\s*(\d+)\s*(ms)?\s*", text)
    if m is None:
        raise BudgetError(f"search budget {text!r} is not a whole number of playouts or milliseconds; use {allowed}")
    value, ms = int(m.group(1)), m.group(2) is not None
    high = MAX_MS if ms else MAX_PLAYOUTS
    if not 1 <= value <= high:
        raise BudgetError(f"search budget {text!r} is out of range; use {allowed}")
    return (None, float(value)) if ms else (value, None)


def _class_at(path: str) -> type:
    import importlib

    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def rollout_agent(game: BatchedGame) -> Any:
    """The rollout policy of ``game`` (:data:`ROLLOUT`; compiled where there is a compiled version)."""
    style = ROLLOUT[game.name]
    if game.name == "tripoli":
        from agents.tripoli_rollout import TripoliCompiled

        return TripoliCompiled(game, style)
    from agents.zoo import bot_class

    return bot_class(game.name, style)(game)


class SearchAgent(AgentBase):
    """Monte-Carlo search over sampled deals, the game's best bot finishing each (module docstring)."""

    name = "search"
    version = 2
    """v2: Le triolet's sampler models every move of a step (its forced moves, C8), and its rollouts are compiled;
    Flip Flop's other seats are modelled as the zoo's styles or random players (v1: the heuristic), and its search
    switches only past :func:`switch_z`; Le triolet's other seats are modelled as its styles or random players."""
    wants_seat_view = True

    def __init__(self, game: BatchedGame, playouts: int | None = DEFAULT_PLAYOUTS, ms: float | None = None,
                 kinds: tuple[str, ...] | None = None, opponents: str = "types", infer: bool = False,
                 family_wise: bool | None = None, base: Any = None) -> None:
        super().__init__(game)
        if game.name not in SAMPLERS:
            raise ValueError(f"search has no sampler for {game.name} yet (games with one: {', '.join(SAMPLERS)})")
        if (playouts is None) == (ms is None):
            raise ValueError("give a search budget in playouts or in milliseconds, not both")
        self.playouts, self.ms = playouts, ms
        self.family_wise = game.name in FAMILY_WISE if family_wise is None else family_wise
        """Hold the chance of leaving the rollout policy's choice for a candidate no better than it at that of one
        candidate, however many there are (:func:`switch_z`; default: the games of :data:`FAMILY_WISE`)."""
        self.rollout_policy = rollout_agent(game)
        self.base = self.rollout_policy if base is None else base
        """The agent whose choice the search keeps unless a candidate beats it (default: the rollout policy; a
        trained policy makes the search an improvement of that policy: :mod:`training.distill`)."""
        self.base_choice = np.zeros(0, np.int64)
        """The base's choices at the last call (the search's answers where it did not switch)."""
        self.sampler = _class_at(SAMPLERS[game.name])(game, self.rollout_policy)
        if opponents not in ("types", "policy"):
            raise ValueError(f"opponents must be 'types' or 'policy', got {opponents!r}")
        self.types = opponent_types(game) if opponents == "types" else []
        """The candidate models of another seat's play (the game's zoo bots, compiled, and ``None`` for a random
        player); each seat's model in a rollout is drawn from its posterior (:func:`type_posterior`). Empty: every
        seat plays the rollout policy."""
        self.sampler.judges = tuple(t for t in self.types if t is not None)
        self.infer = infer
        """Weigh the sampled deals by the likelihood of the other seats' public actions under their models (see
        :meth:`_round`); off by default: it made Tripoli's betting search better against players who bet their
        strong hands (+1.7 chips a deal) but worse against random players, whose models are uncertain early in a
        deal, and did not help in Flip Flop."""
        if infer and not self.types:  # the other seats are taken to play the rollout policy
            self.sampler.judges = (self.rollout_policy,)
        self.own_style = next((i for i, t in enumerate(self.types) if t is not None and t.name == ROLLOUT[game.name]),
                              0)
        """The index in :attr:`types` of the rollout policy: the searching seat's own play in the rollouts."""
        self.why_not = self.sampler.unsupported()
        """Why this game's configuration cannot be searched (``None``: it can); then every decision falls back."""
        self.names = game.action_names()
        self.kinds = [action_kind(name) for name in self.names]
        if kinds is None:
            kinds = tuple(k for k in set(self.kinds) if k not in NOT_SEARCHED.get(game.name, ()))
        self.searched_kinds = set(kinds)
        """The action kinds (of the rollout policy's choice) whose decisions are searched (default: all but
        :data:`NOT_SEARCHED`); at the others the rollout policy chooses."""
        self.sized = {k for k, name in zip(self.kinds, self.names, strict=True) if name.split()[-1].isdigit()}
        """Action kinds with a size (``bet 3``): many of them are thinned out (:meth:`candidates`)."""
        self.stats = {"decisions": 0, "searched": 0, "fallbacks": 0, "drawn": 0, "kept": 0, "playouts": 0,
                      "random_share": 0.0, "seconds": 0.0, "cpu_seconds": 0.0}
        """Rows answered, rows searched (more than one legal action and a sampled deal), rows that fell back on the
        rollout policy's choice, deals drawn and kept by the sampler, playouts, the posterior probability of random
        play summed over the other seats and searched decisions, and wall and CPU time in ``act``."""

    # ----- candidates --------------------------------------------------------------------------------------------
    def candidates(self, mask_row: np.ndarray, choice: int) -> list[int]:
        """The actions tried at a decision (module docstring), ascending."""
        legal = np.flatnonzero(mask_row).tolist()
        by_kind: dict[str, list[int]] = {}
        for a in legal:
            by_kind.setdefault(self.kinds[a], []).append(a)
        keep = {int(choice)}
        for kind, acts in by_kind.items():
            if kind in self.sized and len(acts) > SIZE_KINDS_KEPT:
                spots = np.unique(np.round(np.linspace(0, len(acts) - 1, SIZE_KINDS_KEPT)).astype(int))
                keep.update(acts[i] for i in spots)
            else:
                keep.update(acts)
        return sorted(keep)

    # ----- acting ------------------------------------------------------------------------------------------------
    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
            views: list[SeatView] | None = None) -> np.ndarray:
        t0, c0 = time.perf_counter(), time.process_time()
        mask = np.asarray(mask, bool)
        b = len(obs)
        choice = np.asarray(self.base.act(obs, mask, rng), np.int64)
        self.base_choice = choice
        seeds = rng.integers(0, 2**63, size=b)
        out = choice.copy()
        self.stats["decisions"] += b
        rows = np.flatnonzero(mask.sum(axis=1) > 1)
        rows = rows[[self.kinds[int(choice[r])] in self.searched_kinds for r in rows.tolist()]]
        gated = GATED.get(self.game.name, ())
        if gated and self.types and views is not None and rows.size:  # searched only against random-looking seats
            keep = []
            for r in rows.tolist():
                if self.kinds[int(choice[r])] in gated:
                    post = type_posterior(views[r], self.game.num_players, len(self.types))
                    others = np.arange(self.game.num_players) != views[r].seat
                    keep.append(post[others, -1].mean() >= GATE_RANDOM)
                else:
                    keep.append(True)
            rows = rows[keep]
        if self.why_not is not None or views is None or not rows.size:
            self.stats["fallbacks"] += rows.size
            self._clock(t0, c0)
            return out
        cands = [self.candidates(mask[r], int(choice[r])) for r in rows.tolist()]
        sums = [np.zeros(len(c)) for c in cands]
        squares = [np.zeros(len(c)) for c in cands]  # of each candidate's difference from the policy's choice
        own = [c.index(int(choice[r])) for c, r in zip(cands, rows.tolist(), strict=True)]
        counts = np.zeros(rows.size, np.int64)
        round_no = 0
        while True:
            if self.playouts is not None:
                worlds = np.array([max(math.ceil(self.playouts / len(c)), 1) for c in cands], np.int64)
            else:
                worlds = np.full(rows.size, ROUND_WORLDS, np.int64)
            round_seeds = seeds[rows] + round_no
            self._round(rows, views, mask, cands, worlds, round_seeds, sums, counts, squares, own)
            round_no += 1
            if self.playouts is not None or time.perf_counter() - t0 >= self.ms / 1000 * rows.size:
                break
        for i, r in enumerate(rows.tolist()):
            if counts[i] == 0:
                self.stats["fallbacks"] += 1
                continue
            self.stats["searched"] += 1
            k = counts[i]
            gain = (sums[i] - sums[i][own[i]]) / k  # mean difference from the policy's choice, paired by deal
            spread = np.sqrt(np.maximum(squares[i] / k - gain**2, 0.0) / max(k - 1, 1))
            best = int(np.argmax(gain))
            z = switch_z(len(cands[i])) if self.family_wise else SWITCH_Z
            if gain[best] > max(z * spread[best], 1e-9):
                out[r] = cands[i][best]
        self._clock(t0, c0)
        return out

    def _clock(self, t0: float, c0: float) -> None:
        self.stats["seconds"] += time.perf_counter() - t0
        self.stats["cpu_seconds"] += time.process_time() - c0

    def _round(self, rows: np.ndarray, views: list[SeatView], mask: np.ndarray, cands: list[list[int]],
               worlds: np.ndarray, seeds: np.ndarray, sums: list[np.ndarray], counts: np.ndarray,
               squares: list[np.ndarray], own: list[int]) -> None:
        """One round: sample ``worlds[i]`` deals for row ``rows[i]``, play every candidate in each, add the results to
        ``sums[i]`` (per candidate), the squared differences from candidate ``own[i]`` (the policy's choice) in the
        same deal to ``squares[i]`` and the deals played to ``counts[i]``.

        With :attr:`infer`, :data:`OVERSAMPLE` times as many deals are drawn, each weighed by the likelihood of the
        other seats' betting under their most likely model (:meth:`DealSampler.sample`), and ``worlds[i]`` of them are
        drawn by weight (with repeats): the deals then lean towards the hands the others'
        bets and bids suggest."""
        n = self.game.num_players
        rng = np.random.default_rng(int(seeds[0]))
        row_views = [views[r] for r in rows.tolist()]
        post = likelihood = None
        if self.types:
            post = np.stack([type_posterior(v, n, len(self.types)) for v in row_views])  # (rows, n, types)
            self.stats["random_share"] += float(post[:, :, -1].sum() / max(n - 1, 1))
        if self.infer and self.types:
            likelihood = (np.argmax(post[:, :, :-1], axis=2), post[:, :, -1].copy())
        elif self.infer:
            likelihood = (np.zeros((rows.size, n), np.int64), np.zeros((rows.size, n)))
        want = worlds * (OVERSAMPLE if self.infer else 1)
        samples = self.sampler.sample(row_views, want, seeds, likelihood=likelihood)
        self.stats["drawn"] += int(samples.drawn.sum())
        self.stats["kept"] += int(samples.kept.sum())
        if samples.state is None:
            return
        state, owner = samples.state, samples.owner
        # a sampled deal must leave the seat the same legal actions (its observation is the same: it always does)
        world = np.flatnonzero((state.legal_action_mask == mask[rows[owner]]).all(axis=1))
        if self.infer and world.size:
            world = self._by_weight(world, owner, samples.logw, worlds, rng)
        n_cand = np.array([len(cands[o]) for o in owner[world].tolist()], np.int64)
        table_world = np.repeat(world, n_cand)
        if not table_world.size:
            return
        actions = np.concatenate([cands[o] for o in owner[world].tolist()])
        clones = state.take(table_world)
        seat = np.array([row_views[o].seat for o in owner[table_world].tolist()], np.int64)
        seat_style = None
        if self.types:  # each other seat's model in each sampled deal, drawn from its posterior
            cum = np.cumsum(post[owner[world]], axis=2)  # (worlds, n, types)
            drawn = np.minimum((rng.random((world.size, n, 1)) > cum).sum(axis=2), len(self.types) - 1)
            style_of = np.array([-1 if t is None else i for i, t in enumerate(self.types)], np.int64)
            per_world = style_of[drawn]
            per_world[np.arange(world.size), [row_views[o].seat for o in owner[world].tolist()]] = self.own_style
            seat_style = np.repeat(per_world, n_cand, axis=0)
        values = self.playout(clones, np.asarray(actions, np.int64), seat, int(seeds[0]), seat_style)
        self.stats["playouts"] += len(values)
        start = 0
        for o, k in zip(owner[world].tolist(), n_cand.tolist(), strict=True):
            vals = values[start:start + k]
            sums[o] += vals
            squares[o] += (vals - vals[own[o]]) ** 2
            start += k
        counts += np.bincount(owner[world], minlength=rows.size)

    @staticmethod
    def _by_weight(world: np.ndarray, owner: np.ndarray, logw: np.ndarray, worlds: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """``worlds[o]`` deals of each view ``o`` drawn from ``world`` by their weights ``exp(logw)`` (systematic
        resampling: repeats allowed, in drawing order)."""
        out = []
        for o in np.unique(owner[world]).tolist():
            mine = world[owner[world] == o]
            w = np.exp(logw[mine] - logw[mine].max())
            cum = np.cumsum(w / w.sum())
            k = int(worlds[o])
            picks = np.searchsorted(cum, (rng.random() + np.arange(k)) / k, side="right")
            out.append(mine[np.minimum(picks, mine.size - 1)])
        return np.concatenate(out) if out else world[:0]

    def playout(self, state: Any, actions: np.ndarray, seats: np.ndarray, seed: int = 0,
                seat_style: np.ndarray | None = None) -> np.ndarray:
        """Play ``actions`` at every table of ``state`` (in place), then the rest of the deal with the rollout policy;
        the result of seat ``seats[t]`` at each table from now on (the change of its balance, Tripoli's chips, or
        bank, Flip Flop's stakes; a game's rewards where it keeps neither). ``seat_style[t, p]``: the index in
        :attr:`types` of the model seat ``p`` plays at table ``t`` (-1: random moves; ``None``: every seat plays the
        rollout policy)."""
        game, tables = self.game, np.arange(state.batch_size)
        money = next((m for m in ("balance", "bank") if hasattr(state, m)), None)
        if money is not None and hasattr(self.rollout_policy, "rollout"):
            before = getattr(state, money)[tables, seats].astype(np.float64)
            game.step(state, actions)
            styles = tuple(t.policy for t in self.types if t is not None) or None
            self.rollout_policy.rollout(state, tables, styles=styles, seat_style=seat_style, seed=seed)
            return getattr(state, money)[tables, seats] - before
        deal_at = deal_index(game)
        deal = None if deal_at is None else game.observe(state, seats)[:, deal_at].copy()
        total = np.zeros(state.batch_size)
        game.step(state, actions)
        total += state.rewards[tables, seats]
        rng = np.random.default_rng(seed)
        finish = getattr(self.rollout_policy, "finish", None)
        while True:
            live = np.flatnonzero(~state.done)
            if deal is not None and live.size:  # the deal's end: the next deal of the episode is not played
                now = game.observe(state.take(live), seats[live])[:, deal_at]
                live = live[now == deal[live]]
            if finish is not None and live.size:  # the tables the policy plays to the end compiled (Le triolet)
                styles = tuple(t.priority for t in self.types if t is not None) or None
                done = finish(state, live, styles=styles, seat_style=seat_style, seed=seed)
                total[done] += state.rewards[done, seats[done]]
                live = np.setdiff1d(live, done)
            if not live.size:
                return total
            sub = state.take(live)
            obs = game.observe(sub, sub.current_player)
            acts = np.asarray(self.rollout_policy.act(obs, sub.legal_action_mask, rng), np.int64)
            game.step(state, acts, tables=live)
            total[live] += state.rewards[live, seats[live]]


RANDOM_PRIOR = 0.1
"""Prior probability that another seat plays random moves; the zoo's styles share the rest equally."""
MODEL_NOISE = 0.1
"""The chance a seat playing a style takes another action than the style would in a sampled deal (its hand differs
from the sampled one): the likelihood of an action under a style is ``(1 - MODEL_NOISE) q + MODEL_NOISE / legal``."""


TRIOLET_STYLES = ("heuristic", "specials", "pairs", "saver")
"""Le triolet's models of another seat: the zoo's styles whose rollouts are compiled (not ``blocker``: its choice
reads the next seat's cards left)."""


def opponent_types(game: BatchedGame) -> list[Any]:
    """The candidate models of another seat's play: the zoo's styles (compiled), then ``None`` for random moves; the
    empty list for a game whose styles are not compiled (every seat then plays the rollout policy)."""
    if game.name == "triolet":  # the zoo's styles that choose by their priorities alone (compiled finish)
        from agents.zoo import bot_class

        return [bot_class(game.name, style)(game) for style in TRIOLET_STYLES] + [None]
    if game.name == "tripoli":
        from agents.tripoli_rollout import STYLES, TripoliCompiled

        return [TripoliCompiled(game, style) for style in STYLES] + [None]
    if game.name == "flipflop":
        from agents.zoo import bot_class, bot_names

        return [bot_class(game.name, name)(game) for name in bot_names(game.name) if name != "random"] + [None]
    return []


def type_posterior(view: SeatView, n: int, k: int) -> np.ndarray:
    """``(n, k)`` the posterior probability that each seat plays each of the ``k`` candidate models (the last one
    random moves), from its public actions so far in the deal.

    ``view.cache["evidence"]`` (gathered by the sampler's replays) holds, for each public action of another seat, the
    share ``q[j]`` of the sampled deals where model ``j`` in that seat's place chose that action, and the mean
    ``1 / legal actions``; the action's likelihood under model ``j`` is ``(1 - MODEL_NOISE) q[j] + MODEL_NOISE /
    legal`` and ``1 / legal`` under random moves. The prior: :data:`RANDOM_PRIOR` for random moves, the rest shared
    by the others. The seat itself gets the prior (it is never drawn)."""
    prior = np.full(k, (1 - RANDOM_PRIOR) / (k - 1))
    prior[-1] = RANDOM_PRIOR
    logp = np.tile(np.log(prior), (n, 1))
    for seat, q, inv_legal in view.cache.get("evidence", ()):
        like = np.empty(k)
        like[:-1] = (1 - MODEL_NOISE) * np.asarray(q) + MODEL_NOISE * inv_legal
        like[-1] = inv_legal
        logp[seat] += np.log(like + 1e-12)
    post = np.exp(logp - logp.max(axis=1, keepdims=True))
    return post / post.sum(axis=1, keepdims=True)


def make_search(game: BatchedGame, budget: str | None) -> SearchAgent:
    """The search agent of a spec's budget part (``None``: the default), :class:`BudgetError` for a bad one."""
    playouts, ms = (DEFAULT_PLAYOUTS, None) if budget is None else parse_budget(budget)
    return SearchAgent(game, playouts=playouts, ms=ms)
