"""What happens in the games agents play: episode lengths, how often each rule fires, where the chips go, and the
decisions each agent takes, on duplicate deals: ``play_stats(game, agents, deals, seed) -> GameStats``.

The tables are played as :func:`training.evaluate.evaluate` plays them (deal groups, every agent in every seat), on
the same game with ``auto_forced=False`` (:func:`every_move`): every move is then a step of its own, forced moves
included (a forced move has one legal action, which every agent takes), so a watcher of the batched core
(:class:`~training.evaluate.StepWatch`) sees each rule where it fires, move by move. It reads the state, as an
umpire does; the agents still see only their observations. Per episode it counts:

- **moves** (every step), **choices** (the moves with more than one legal action) and the moves of each action
  kind (:func:`envs.core.game.action_kind`: ``bet 3`` is ``bet``), and each agent's choices by kind;
- **events**, the rules of each game that no action names, per episode:

  - Tripoli: ``auction sold`` (the spare hand went to a bidder, T7), ``pay cards paid`` (how many of the five pay
    spaces were won, T10/T25), ``king-queen paid``, ``8-9-10 paid``, ``showdown`` or ``uncontested pot`` (T15/T16),
    how each Michigan run stopped (T21): ``stopped by the ace``, ``stopped by a card out of play`` (in the spare or a
    dead hand, T9), ``stopped by a card played earlier``; how the deal ended: ``went out`` (T23) or ``blocked``
    (nobody could lead, T22);
  - Le triolet: ``burned by a 10`` (L8), ``burned by four of a kind`` (L9), ``face-down missed`` (a turned face-down
    card that could not be played, L13), ``truncated`` (``max_turns``, L16);
  - Flip Flop: how the deal ended (F22): ``49/50``, ``went out``, ``tunked out``, ``dropped and won``, ``dropped and
    caught``, ``stock exhausted``, ``cut off`` (F28); ``flop pot carried`` (nobody was dealt the flop suit, F10);

- **stages**: each seat's chips (or stakes) by where they went, summing to its return:

  - Tripoli: ``ante`` (9 chips a deal, T4), ``auctions`` (the spare hand's price paid to the dealer, T7; the pay
    suit's to the kitty, T26), ``pay cards`` (the pay-card, king-queen and sequence spaces, T10/T25), ``betting``
    (bets and the pot, T14–T17), ``Michigan`` (the kitty and the cards left in hand, T22/T23);
  - Flip Flop: ``ante`` (a stake into each pot, F4), ``flip pot`` and ``flop pot`` (F9/F10), ``game pot`` (the
    deal's winner, extra stakes included: F7, F18–F21);
  - Le triolet: ``result`` (+1 to the winner, −1/(n − 1) to the others, L16).

A step's chips go to the stage of the phase it was played in, except that an auction's price is taken out of the
step that ends the auction and the pay spaces' chips out of whichever step pays them. Stages are measured on
one-deal episodes (the games' default); a session (Tripoli's or Flip Flop's ``num_deals > 1``) is refused.

``record=(keep, features)`` also keeps, for each agent, ``features(obs)`` and the action of each of its decisions
where ``keep(obs, mask)`` holds (its own observation: e.g. the hand strength at each betting decision).
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.registry import make_agent
from envs.core.agent import Agent, agent_label, call_agent, wants_seat_view
from envs.core.cards import popcount
from envs.core.checks import U64_MAX, ArgumentError, check_int, show
from envs.core.game import BatchedGame, BatchState, action_kind
from envs.registry import make_game
from training.evaluate import UNITS, Z95, duplicate_seats, group_seeds, play_duplicate

Keep = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``keep(obs, mask) -> (B,) bool``: the decisions to record."""
Features = Callable[[np.ndarray], np.ndarray]
"""``features(obs) -> (B,) or (B, k)`` numbers kept for each recorded decision."""


def every_move(game: BatchedGame) -> BatchedGame:
    """``game`` with ``auto_forced=False``: the same rules, every move a step (what :func:`play_stats` plays)."""
    if game.config.auto_forced is False:
        return game
    return make_game(game.name, num_players=game.num_players, **{**game.changed_options(), "auto_forced": False})


class Recorded:
    """Plays ``agent`` and keeps ``features(obs)`` and the action of each of its decisions where ``keep(obs, mask)``
    holds: what the agent saw and what it did, nothing else."""

    def __init__(self, agent: Agent, keep: Keep, features: Features) -> None:
        self.agent, self.keep, self.features = agent, keep, features
        self.name = getattr(agent, "name", type(agent).__name__)
        self.version = getattr(agent, "version", 1)
        self.game = getattr(agent, "game", None)
        self.wants_seat_view = wants_seat_view(agent)
        self.uses_observation = True
        self._features: list[np.ndarray] = []
        self._actions: list[np.ndarray] = []

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, views: Any = None) -> np.ndarray:
        actions = np.asarray(call_agent(self.agent, obs, mask, rng, views))
        rows = np.flatnonzero(np.asarray(self.keep(obs, mask), bool))
        if rows.size:
            self._features.append(np.asarray(self.features(obs[rows]), np.float64).reshape(rows.size, -1))
            self._actions.append(actions[rows].astype(np.int64))
        return actions

    def records(self) -> tuple[np.ndarray, np.ndarray]:
        """``(features (N, k), actions (N,))`` of the recorded decisions, in the order they were taken."""
        if not self._actions:
            return np.zeros((0, 1)), np.zeros(0, np.int64)
        return np.concatenate(self._features), np.concatenate(self._actions)


# ----- the watchers: one per game ------------------------------------------------------------------------------------
class _Watch:
    """Counts moves, choices and action kinds; a game's subclass adds its events and stages."""

    events: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()

    def __init__(self, game: BatchedGame, seat_agent: np.ndarray, num_agents: int) -> None:
        self.game, self.seat_agent = game, seat_agent
        tables, n = seat_agent.shape
        self.kinds = game.action_kinds()
        self.kind_of = np.array([self.kinds.index(action_kind(name)) for name in game.action_names()], np.int64)
        self.moves = np.zeros(tables, np.int64)
        self.choices = np.zeros(tables, np.int64)
        self.kind_counts = np.zeros((tables, len(self.kinds)), np.int64)
        self.agent_kinds = np.zeros((num_agents, len(self.kinds)), np.int64)
        self.event = {name: np.zeros(tables, np.int64) for name in self.events}
        self.stage = {name: np.zeros((tables, n)) for name in self.stages}
        self._live = np.zeros(0, np.int64)
        self._actions = np.zeros(0, np.int64)

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        pass

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        live = np.flatnonzero(~state.done)
        self._live, self._actions = live, actions[live]
        t = rows[live]
        kind = self.kind_of[self._actions]
        self.moves[t] += 1
        choice = state.legal_action_mask[live].sum(axis=1) > 1
        self.choices[t] += choice
        np.add.at(self.kind_counts, (t, kind), 1)
        who = self.seat_agent[t, state.current_player[live]]
        np.add.at(self.agent_kinds, (who[choice], kind[choice]), 1)

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        pass

    def _add(self, stage: str, tables: np.ndarray, seats: np.ndarray, amounts: np.ndarray) -> None:
        np.add.at(self.stage[stage], (tables, seats), amounts)


class _TripoliWatch(_Watch):
    events = ("auction sold", "pay cards paid", "king-queen paid", "8-9-10 paid", "showdown", "uncontested pot",
              "stopped by the ace", "stopped by a card out of play", "stopped by a card played earlier", "went out",
              "blocked")
    stages = ("ante", "auctions", "pay cards", "betting", "Michigan")

    def __init__(self, game: BatchedGame, seat_agent: np.ndarray, num_agents: int) -> None:
        super().__init__(game, seat_agent, num_agents)
        from envs.tripoli import state as S

        self.S = S
        self.acts = game.actions

    def _paid(self, t: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
        """Count the pay spaces (0–6) emptied or shared out between two layouts; the chips they paid, per row."""
        paid = np.maximum(before[:, :7] - after[:, :7], 0)
        self.event["pay cards paid"][t] += (paid[:, :5] > 0).sum(axis=1)
        self.event["king-queen paid"][t] += paid[:, self.S.SPACE_KQ] > 0
        self.event["8-9-10 paid"][t] += paid[:, self.S.SPACE_SEQUENCE] > 0
        return paid.sum(axis=1)

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        n = self.game.num_players
        ante = -float(self.S.NUM_SPACES)
        self.stage["ante"][rows] += ante
        self.stage["pay cards"][rows] += state.rewards - ante  # what dealing paid besides the ante (no spare phase)
        self._paid(rows, np.full((len(rows), self.S.NUM_SPACES), n), state.layout)

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        super().before(state, rows, actions)
        live = self._live
        self._pre = {name: getattr(state, name)[live].copy() for name in
                     ("phase", "layout", "current_player", "high_bid", "high_bidder", "dealer")}

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        S, A, live, pre, act = self.S, self.acts, self._live, self._pre, self._actions
        t = rows[live]
        reward = state.rewards[live].copy()
        phase, post = pre["phase"], state.phase[live]
        # auctions: the price leaves the step that ends the auction (the winning bid may be this step's action)
        bid = (act >= A.bid) & (act < A.name_suit)
        price = np.where(bid, act - A.bid + 1, pre["high_bid"])
        bidder = np.where(bid, pre["current_player"], pre["high_bidder"])
        for auction, to_dealer in ((S.P_AUCTION, True), (S.P_SUIT_AUCTION, False)):
            sold = np.flatnonzero((phase == auction) & (post != auction) & (price > 0))
            if sold.size:
                self._add("auctions", t[sold], bidder[sold], -price[sold])
                reward[sold, bidder[sold]] += price[sold]
                if to_dealer:
                    self._add("auctions", t[sold], pre["dealer"][sold], price[sold])
                    reward[sold, pre["dealer"][sold]] -= price[sold]
                    self.event["auction sold"][t[sold]] += 1
        # pay spaces: whoever the step paid them to (on the deal, T10: the step that ends the spare hand; in play,
        # T25: the player of the card, who is the player to act)
        paid = self._paid(t, pre["layout"], state.layout[live])
        michigan = (phase == S.P_LEAD) | (phase == S.P_RUN)
        in_play = np.flatnonzero(michigan & (paid > 0))
        if in_play.size:
            seat = pre["current_player"][in_play]
            self._add("pay cards", t[in_play], seat, paid[in_play])
            reward[in_play, seat] -= paid[in_play]
        betting = phase == S.P_BET
        for stage, rows_of in (("betting", betting), ("Michigan", michigan), ("pay cards", ~betting & ~michigan)):
            sel = np.flatnonzero(rows_of)
            self.stage[stage][t[sel]] += reward[sel]
        # the end of the betting: a showdown or a pot taken unseen
        ended = np.flatnonzero(betting & (post != S.P_BET))
        if ended.size:
            n = self.game.num_players
            still_in = (~state.folded[live[ended], :n]).sum(axis=1)
            self.event["showdown"][t[ended]] += still_in > 1
            self.event["uncontested pot"][t[ended]] += still_in <= 1
        # Michigan: how a run stopped, how the deal ended
        stopped = np.flatnonzero(michigan & (post != S.P_RUN))
        if stopped.size:
            b = live[stopped]
            done = state.done[b]
            out = done & (popcount(state.hands[b, : self.game.num_players]) == 0).any(axis=1)
            self.event["went out"][t[stopped]] += out
            self.event["blocked"][t[stopped]] += done & ~out
            last = state.last_card[b]
            ace = last % 13 == S.RANK_ACE
            nxt = np.uint64(1) << np.minimum(last + 1, 63).astype(np.uint64)
            out_of_play = ~ace & ((state.spare[b] | state.dead[b]) & nxt != 0)
            run_stop = ~out  # a run that ended without a player going out ended at a stop
            self.event["stopped by the ace"][t[stopped]] += run_stop & ace
            self.event["stopped by a card out of play"][t[stopped]] += run_stop & out_of_play
            self.event["stopped by a card played earlier"][t[stopped]] += run_stop & ~ace & ~out_of_play


class _TrioletWatch(_Watch):
    events = ("burned by a 10", "burned by four of a kind", "face-down missed", "truncated")
    stages = ("result",)
    TENS = np.uint64(sum(1 << (s * 13 + 8) for s in range(4)))  # the four 10s (rank 8 of each suit, C1)

    def _burned(self, state: BatchState, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cards burned and 10s burned at rows ``b`` (two-plane multisets)."""
        one, two = state.burned1[b], state.burned2[b]
        return popcount(one) + popcount(two), popcount(one & self.TENS) + popcount(two & self.TENS)

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        self.stage["result"][rows] += state.rewards

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        super().before(state, rows, actions)
        self._pre = self._burned(state, self._live)

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        live, t = self._live, rows[self._live]
        self.stage["result"][t] += state.rewards[live]
        cards, tens = self._burned(state, live)
        burn = cards > self._pre[0]  # one move a step: at most one burn
        ten = tens > self._pre[1]  # a 10 never stays on the pile: a burn that takes one is the 10's (L8)
        self.event["burned by a 10"][t] += burn & ten
        self.event["burned by four of a kind"][t] += burn & ~ten
        facedown = self.kind_of[self._actions] == self.kinds.index("play face-down")
        self.event["face-down missed"][t] += facedown & state.last_missed[live]
        self.event["truncated"][t] += state.truncated[live]


class _FlipFlopWatch(_Watch):
    events = ("49/50", "went out", "tunked out", "dropped and won", "dropped and caught", "stock exhausted", "cut off",
              "flop pot carried")
    stages = ("ante", "game pot", "flip pot", "flop pot")

    def begin(self, state: BatchState, rows: np.ndarray) -> None:
        self.stage["ante"][rows] += state.rewards  # dealing moves the antes only (a 49/50 claim is a decision)

    def before(self, state: BatchState, rows: np.ndarray, actions: np.ndarray) -> None:
        super().before(state, rows, actions)
        self._pots = state.pots[self._live].copy()

    def after(self, state: BatchState, rows: np.ndarray) -> None:
        from envs.flipflop import state as S

        live, t, stake = self._live, rows[self._live], float(self.game.config.stake)
        reward = state.rewards[live].copy()
        paid = (self._pots - state.pots[live]) * stake
        for pot, side, stage in ((S.FLIP_POT, S.FLIP, "flip pot"), (S.FLOP_POT, S.FLOP, "flop pot")):
            sel = np.flatnonzero(paid[:, pot] > 1e-12)
            if sel.size:
                seat = state.side_winner[live[sel], side]
                self._add(stage, t[sel], seat, paid[sel, pot])
                reward[sel, seat] -= paid[sel, pot]
        self.stage["game pot"][t] += reward
        done = np.flatnonzero(state.done[live])
        reason = state.end_reason[live[done]]
        for name, code in zip(self.events[:7], (S.INSTANT, S.WENT_OUT, S.TUNKED, S.DROP_WON, S.CAUGHT, S.STOCK_OUT,
                                                S.CUT_OFF), strict=True):
            self.event[name][t[done]] += reason == code
        self.event["flop pot carried"][t[done]] += state.side_winner[live[done], S.FLOP] < 0


WATCHES: dict[str, type[_Watch]] = {"tripoli": _TripoliWatch, "triolet": _TrioletWatch, "flipflop": _FlipFlopWatch}


# ----- the result ----------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class GameStats:
    """Per-episode counts of :func:`play_stats`. Table ``g * n + r`` is rotation ``r`` of deal group ``g``: agent
    ``i`` sits at seat ``(i + r) % n`` (:func:`training.evaluate.duplicate_seats`); intervals are 95% over the deal
    groups (the independent unit), as in :class:`training.evaluate.EvalResult`."""

    game: str
    num_players: int
    options: dict[str, Any]
    agents: list[str]
    """Each agent's name (its spec unless named)."""
    labels: list[str]
    """Each agent's ``name@vN``."""
    seed: int
    seat_agent: np.ndarray
    """(T, n) the agent at each seat of each table."""
    returns: np.ndarray
    """(T, n) each seat's return."""
    moves: np.ndarray
    """(T,) moves of each episode (every step, forced moves included)."""
    choices: np.ndarray
    """(T,) moves with more than one legal action."""
    kinds: list[str]
    """The game's action kinds."""
    kind_counts: np.ndarray
    """(T, K) moves of each kind in each episode."""
    agent_kinds: np.ndarray
    """(A, K) each agent's choices (moves with a choice) of each kind, over all its episodes."""
    events: dict[str, np.ndarray]
    """Name → (T,) how often the event happened in each episode (see the module docstring)."""
    stages: dict[str, np.ndarray]
    """Name → (T, n) each seat's chips by stage; they sum to :attr:`returns`."""
    recorded: list[tuple[np.ndarray, np.ndarray]] | None = None
    """Per agent ``(features (N, k), actions (N,))`` of its recorded decisions (``play_stats(record=...)``)."""
    seconds: float = 0.0

    @property
    def unit(self) -> str:
        return UNITS.get(self.game, "reward")

    @property
    def episodes(self) -> int:
        return int(self.moves.shape[0])

    @property
    def groups(self) -> int:
        return self.episodes // self.num_players

    def per_group(self, values: np.ndarray) -> np.ndarray:
        """(G,) the mean of a per-episode ``(T,)`` array over each deal group's ``n`` rotations."""
        return np.asarray(values, np.float64).reshape(self.groups, self.num_players).mean(axis=1)

    def by_agent(self, values: np.ndarray) -> np.ndarray:
        """(G, A) each agent's mean over its seats in each deal group, of a per-seat ``(T, n)`` array."""
        n = self.num_players
        rot = np.arange(n)
        seat = (rot[None, :] + rot[:, None]) % n  # [r, i]: the seat of agent i in rotation r
        per_table = np.asarray(values, np.float64).reshape(self.groups, n, n)
        return np.take_along_axis(per_table, np.broadcast_to(seat, per_table.shape), axis=2).mean(axis=1)

    @staticmethod
    def interval(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean over the first axis and the half-width of its 95% interval (``inf`` with one sample)."""
        samples = np.asarray(samples, np.float64)
        mean = samples.mean(axis=0)
        if samples.shape[0] < 2:
            return mean, np.full(np.shape(mean), math.inf)
        return mean, Z95 * samples.std(axis=0, ddof=1) / math.sqrt(samples.shape[0])

    def rate(self, name: str) -> tuple[float, float]:
        """How often event ``name`` (or a move of action kind ``name``) happens per episode, and the 95% half-width."""
        if name in self.events:
            values = self.events[name]
        elif name in self.kinds:
            values = self.kind_counts[:, self.kinds.index(name)]
        else:
            raise ArgumentError(f"{self.game}: no event or action kind {name!r}; events: {', '.join(self.events)}; "
                                f"kinds: {', '.join(self.kinds)}")
        mean, half = self.interval(self.per_group(values))
        return float(mean), float(half)

    def stage_means(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Stage → ``(mean (A,), 95% half-width (A,))``: each agent's chips per episode in that stage."""
        return {name: self.interval(self.by_agent(flow)) for name, flow in self.stages.items()}

    def stage_swing(self) -> dict[str, tuple[float, float]]:
        """Stage → how many chips it moves between the players: per episode, the mean over the seats of how far each
        seat's chips in the stage lie from the table's average (0 for the ante, which everybody pays alike), then
        the mean over episodes and its 95% half-width. It measures a stage whoever plays, also when every seat
        plays the same agent (where each agent's mean is only the table's average)."""
        out = {}
        for name, flow in self.stages.items():
            swing = np.abs(flow - flow.mean(axis=1, keepdims=True)).mean(axis=1)
            mean, half = self.interval(self.per_group(swing))
            out[name] = (float(mean), float(half))
        return out

    def choice_shares(self, agent: int) -> dict[str, float]:
        """Agent ``agent``'s choices by action kind, as shares of all its choices."""
        counts = self.agent_kinds[agent]
        total = max(int(counts.sum()), 1)
        return {kind: float(c) / total for kind, c in zip(self.kinds, counts, strict=True) if c}

    def table(self) -> str:
        """The printed summary: lengths, events, stages by agent."""
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items() if k != "auto_forced") or "default rules"
        mean_moves, half_moves = self.interval(self.per_group(self.moves))
        mean_choices, half_choices = self.interval(self.per_group(self.choices))
        lines = [f"{self.game}, {self.num_players} players ({opts}): {self.episodes:,} episodes in {self.groups:,} "
                 f"duplicate deal groups, seed {self.seed}, {self.seconds:.1f} s; agents: {', '.join(self.agents)}",
                 f"moves per episode {mean_moves:.1f} ± {half_moves:.1f}, of which choices {mean_choices:.1f} ± "
                 f"{half_choices:.1f}",
                 "events per episode:"]
        for name in self.events:
            mean, half = self.rate(name)
            lines.append(f"  {name:<34} {mean:>8.3f} ± {half:.3f}")
        lines.append(f"{self.unit} per episode by stage (mean ± 95%):")
        width = max(12, *(len(a) for a in self.agents))
        lines.append(f"  {'stage':<12} " + " ".join(f"{a:>{width + 9}}" for a in self.agents))
        for name, (mean, half) in self.stage_means().items():
            lines.append(f"  {name:<12} " + " ".join(f"{m:>+{width}.3f} ± {h:<6.3f}" for m, h in zip(mean, half,
                                                                                                 strict=True)))
        return "\n".join(lines)


def paired_stages(result: GameStats, baseline: GameStats, agent: int = 0) -> dict[str, tuple[float, float]]:
    """Stage → agent ``agent``'s chips per episode in ``result`` minus the chips of the agent in its place in
    ``baseline`` (the same deals: same game, seed and size), and the 95% half-width, paired over the deal groups:
    where one agent's edge over another comes from, stage by stage (``"total"`` is the whole return)."""
    same = ("game", "num_players", "options", "seed")
    if any(getattr(result, k) != getattr(baseline, k) for k in same) or result.groups != baseline.groups:
        raise ArgumentError("paired_stages pairs two measurements of the same game, rules, seed and deals")
    flows = {**result.stages, "total": result.returns}
    base = {**baseline.stages, "total": baseline.returns}
    out = {}
    for name in flows:
        diff = result.by_agent(flows[name])[:, agent] - baseline.by_agent(base[name])[:, agent]
        mean, half = GameStats.interval(diff)
        out[name] = (float(mean), float(half))
    return out


# ----- playing -------------------------------------------------------------------------------------------------------
def _build(spec: Agent | str, game: BatchedGame) -> Agent:
    if not isinstance(spec, str):
        return spec
    with warnings.catch_warnings():  # a model trained with auto_forced=True plays the same: its forced moves are the
        warnings.filterwarnings("ignore", message=r".*trained with other rule options: \{'auto_forced': True\}")
        return make_agent(spec, game)


def play_stats(
    game: BatchedGame,
    agents: Sequence[Agent | str],
    deals: int = 2000,
    seed: int = 0,
    names: Sequence[str] | None = None,
    record: tuple[Keep, Features] | None = None,
    batch_size: int = 4096,
) -> GameStats:
    """Play ``deals`` episodes (rounded up to whole deal groups of ``n`` rotations) of ``game`` with ``agents`` (one
    per seat: agent specs, or agents built for :func:`every_move` of ``game``), every move a step, and count what
    happened (module docstring). ``record=(keep, features)`` keeps each agent's decisions where ``keep`` holds.
    Bad arguments raise :class:`~envs.core.checks.ArgumentError`."""
    if not isinstance(game, BatchedGame):
        raise ArgumentError(f"game must be a game core (envs.registry.make_game), got {show(game)}")
    cfg, n = game.config, game.num_players
    if getattr(cfg, "num_deals", 1) != 1 or getattr(cfg, "until_one_left", False):
        raise ArgumentError(f"play_stats measures one-deal episodes; {game!r} plays sessions of several deals")
    if isinstance(agents, (str, bytes)) or len(agents) != n:
        raise ArgumentError(f"agents: {game.name} with {n} players needs {n} agents (one per seat), got {show(agents)}")
    if names is not None and (isinstance(names, str) or len(names) != n):
        raise ArgumentError(f"names must be None or {n} names, got {show(names)}")
    deals = check_int(deals, "deals", low=1)
    seed = check_int(seed, "seed", 0, U64_MAX, allowed="an integer from 0 to 2**64-1")
    batch_size = check_int(batch_size, "batch_size", low=n, allowed=f"an integer at least the number of players ({n})")
    play = every_move(game)
    built = [_build(a, play) for a in agents]
    if record is not None:
        keep, features = record
        built = [Recorded(a, keep, features) for a in built]
    groups = -(-deals // n)
    per_chunk = batch_size // n
    seeds = group_seeds(seed, groups)
    seat_agent = duplicate_seats(n, groups)
    watch = WATCHES[game.name](play, seat_agent, n)
    returns = np.empty((groups * n, n))
    t0 = time.perf_counter()
    for chunk, start in enumerate(range(0, groups, per_chunk)):
        part = seeds[start:start + per_chunk]
        sub = WATCHES[game.name](play, seat_agent[start * n:(start + len(part)) * n], n)
        ret, _ = play_duplicate(play, built, part, np.random.default_rng([seed, chunk]), watch=sub)
        rows = slice(start * n, (start + len(part)) * n)
        rot = np.arange(n)
        seat = (rot[None, :] + rot[:, None]) % n
        per_seat = np.empty_like(ret)
        np.put_along_axis(per_seat, np.broadcast_to(seat, ret.shape), ret, axis=2)  # back from agents to seats
        returns[rows] = per_seat.reshape(-1, n)
        for name in ("moves", "choices", "kind_counts"):
            getattr(watch, name)[rows] = getattr(sub, name)
        watch.agent_kinds += sub.agent_kinds
        for name in watch.event:
            watch.event[name][rows] = sub.event[name]
        for name in watch.stage:
            watch.stage[name][rows] = sub.stage[name]
    return GameStats(
        game=game.name, num_players=n, options=game.changed_options(),
        agents=list(names) if names is not None else [a if isinstance(a, str) else getattr(a, "name", "agent")
                                                      for a in agents],
        labels=[agent_label(a) for a in built], seed=seed, seat_agent=seat_agent, returns=returns,
        moves=watch.moves, choices=watch.choices, kinds=watch.kinds, kind_counts=watch.kind_counts,
        agent_kinds=watch.agent_kinds, events=watch.event, stages=watch.stage,
        recorded=[a.records() for a in built] if record is not None else None,
        seconds=time.perf_counter() - t0,
    )
