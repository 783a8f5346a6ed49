"""Deals consistent with a seat view: the part of every game's sampler (``envs/<game>/sampler.py``) that is not the
game's own.

A sampler turns :class:`~envs.seatview.SeatView` s into full deals the core can play, each one a table at the decision
the seat waits on, in which the seat has seen exactly what it saw in the real deal. It never sees the real deal's
state: its only input is the view (the seat's observations after every step and the public actions). It works in
two parts:

1. **Draw** (the game's): a *constraint model* of where each card the seat has not seen may be — the cards it has
   seen fixed where they are, the facts the public events imply (a card that stopped a run is out of play, …) as
   allowed places per card, the sizes of the hands — and stacked decks drawn from it
   (:func:`place_cards`, :func:`write_deck`). The model may leave out facts (it is a superset of the consistent
   deals); step 2 makes the result exact.
2. **Replay and check** (here, :meth:`DealSampler.sample`): every drawn deck is dealt with ``init(decks=...,
   dealers=...)`` and the deal's actions are replayed — the public ones as they were taken, the other seats' secret
   choices (Tripoli's poker selection) drawn from a policy in the sampled deal (:meth:`DealSampler.secret_choice`).
   A sample is kept only if the seat's observation after every step, and at the start, is the one it saw, the
   same seats acted and every step made the same forced moves (C8; public); the others are rejected. All samples of
   all views are replayed as one batch: one ``step`` and one ``observe`` per step of the longest history.

The acceptance rate (kept / drawn) is counted per view and kept in its ``cache`` so that the next decision draws
about as many decks as it needs; a view with no sample after ``max_rounds`` rounds gets none (its searcher falls back
on its policy).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numba
import numpy as np

from envs.core.agent import call_agent
from envs.core.game import BatchedGame, BatchState
from envs.seatview import SeatView


@dataclasses.dataclass
class Samples:
    """Deals drawn for a list of views."""

    state: BatchState | None
    """The kept deals, one table each, every one at the decision its view waits on (``None`` if none was kept)."""
    owner: np.ndarray
    """(S,) the index of the view of each kept deal."""
    drawn: np.ndarray
    """(V,) decks drawn for each view (all rounds)."""
    kept: np.ndarray
    """(V,) deals kept for each view."""
    passed: np.ndarray | None = None
    """(V,) drawn decks that reproduced the view (kept, or beyond the count asked for)."""
    decks: np.ndarray | None = None
    """(S, deck_size) the stacked deck each kept deal was dealt from."""
    dealers: np.ndarray | None = None
    """(S,) its first dealer."""
    actions: list[list[int]] | None = None
    """The actions each kept deal was replayed with (the view's, its secret choices drawn): with its deck and dealer
    they deal and play the sample again."""
    logw: np.ndarray | None = None
    """(S,) the log-likelihood of each kept deal under the models of :meth:`DealSampler.sample` (0 without)."""

    @property
    def acceptance(self) -> float:
        """The share of the drawn decks that reproduced their view, over all views (1.0 when nothing was drawn)."""
        total = int(self.drawn.sum())
        return float(self.passed.sum()) / total if total else 1.0


def concat_states(states: list[BatchState]) -> BatchState:
    """One state holding the tables of ``states`` in order (copies)."""
    if len(states) == 1:
        return states[0]
    sizes = [s.batch_size for s in states]
    out = states[0].take(np.zeros(sum(sizes), np.int64))
    start = 0
    for s, k in zip(states, sizes, strict=True):
        out.put(np.arange(start, start + k), s)
        start += k
    return out


# ----- drawing: cards into slots, slots into a deck ------------------------------------------------------------------
@numba.njit(cache=True)
def start_draw(loc, fixed, sizes, cap):
    """Start drawing a deal (in place): ``loc`` the fixed cards' slots, ``cap[k]`` the room slot ``k`` (of ``sizes[k]``
    cards) has left beside them; False if a slot holds more fixed cards than its size."""
    loc[:] = fixed
    cap[:] = sizes
    for c in range(loc.shape[0]):
        if loc[c] >= 0:
            cap[loc[c]] -= 1
    for k in range(cap.shape[0]):
        if cap[k] < 0:
            return False
    return True


@numba.njit(cache=True)
def place_cards(loc, domain, cap, full):
    """Place every card ``c`` with ``loc[c] == -1`` in a slot (in place), or return False at a dead end.

    ``domain[c]``: bit mask of the slots card ``c`` may go to (``-1`` in ``loc`` marks a card to place; ``-2`` a card
    outside the deck); ``cap[k]``: room left in slot ``k``; ``full``: the mask of every slot. Cards with fewer
    allowed slots go first (random order among equals), each to an allowed slot with room, drawn in proportion to
    the room; the cards allowed everywhere are then dealt uniformly into the room left. Uses numba's random state
    (seeded by the caller)."""
    nslots = cap.shape[0]
    free = np.empty(loc.shape[0], np.int64)
    keys = np.empty(loc.shape[0], np.float64)
    k = 0
    for c in range(loc.shape[0]):
        if loc[c] == -1:
            free[k] = c
            d = domain[c] & full
            cnt = 0
            for s in range(nslots):
                cnt += (d >> s) & 1
            keys[k] = cnt if d != full else 1000.0
            keys[k] += np.random.random() * 0.5
            k += 1
    order = np.argsort(keys[:k])
    rest = np.empty(k, np.int64)
    nrest = 0
    for i in range(k):
        c = free[order[i]]
        d = domain[c] & full
        if d == full:
            rest[nrest] = c
            nrest += 1
            continue
        total = 0
        for s in range(nslots):
            if (d >> s) & 1:
                total += cap[s]
        if total <= 0:
            return False
        u = np.random.random() * total
        chosen = -1
        for s in range(nslots):
            if (d >> s) & 1 and cap[s] > 0:
                chosen = s
                u -= cap[s]
                if u < 0:
                    break
        loc[c] = chosen
        cap[chosen] -= 1
    # the unconstrained cards: a uniform deal into the room left
    for i in range(nrest - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        rest[i], rest[j] = rest[j], rest[i]
    i = 0
    for s in range(nslots):
        while cap[s] > 0:
            if i >= nrest:
                return False
            loc[rest[i]] = s
            cap[s] -= 1
            i += 1
    return i == nrest


@numba.njit(cache=True)
def write_deck(loc, slot_of_position, deck):
    """The stacked deck (card ids in dealing order) that deals each card ``c`` to slot ``loc[c]``: position ``i``
    goes to slot ``slot_of_position[i]``; within a slot the cards go in ascending order."""
    nslots = 0
    for i in range(slot_of_position.shape[0]):
        nslots = max(nslots, slot_of_position[i] + 1)
    nxt = np.zeros(nslots, np.int64)  # next card id to look at per slot
    for i in range(slot_of_position.shape[0]):
        s = slot_of_position[i]
        c = nxt[s]
        while loc[c] != s:
            c += 1
        deck[i] = c
        nxt[s] = c + 1


# ----- replaying -----------------------------------------------------------------------------------------------------
def _forced_arrays(views: list, longest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The forced moves of the views' steps: ``(V, longest)`` counts and ``(V, longest, most)`` seats and actions
    (``-1`` beyond the count; an action ``-1`` is secret)."""
    most = max([len(f) for v in views for f in v.forced] + [1])
    count = np.zeros((len(views), longest), np.int64)
    seats = np.full((len(views), longest, most), -1, np.int64)
    acts = np.full((len(views), longest, most), -1, np.int64)
    for v, view in enumerate(views):
        for k, moves in enumerate(view.forced):
            count[v, k] = len(moves)
            for i, (p, a) in enumerate(moves):
                seats[v, k, i], acts[v, k, i] = p, a
    return count, seats, acts


def _same_forced(state: BatchState, tables: np.ndarray, count: np.ndarray, seats: np.ndarray,
                 acts: np.ndarray) -> np.ndarray:
    """Whether the last step at ``tables`` made the forced moves given (``count``, ``seats``, ``acts`` per table;
    a secret action ``-1`` matches any)."""
    same = state.forced_count[tables] == count
    m = min(seats.shape[1], state.forced_seat.shape[1])
    got_s, got_a = state.forced_seat[tables, :m], state.forced_action[tables, :m]
    inside = np.arange(m)[None, :] < count[:, None]
    same &= (~inside | ((got_s == seats[:, :m]) & ((acts[:, :m] < 0) | (got_a == acts[:, :m])))).all(axis=1)
    return same

class DealSampler:
    """The replay-and-check half of a game's sampler (module docstring). A game's sampler implements
    :meth:`draw` (and :meth:`unsupported`, and :meth:`secret_choice` if its secret choices must agree with later
    public facts)."""

    max_rounds = 3
    """Rounds of drawing per call: a view with too few kept deals draws again, more the lower its acceptance."""
    max_draw_factor = 12
    """At most this many decks per deal asked for, per round."""
    judges: tuple = ()
    """Agents whose agreement with the other seats' public actions the replays measure (:meth:`_note_evidence`): a
    search's candidate models of how the other seats play."""
    weighed_kinds: tuple[str, ...] = ()
    """The kinds of actions (``envs.core.game.action_kind``) whose likelihood weighs a sample (:meth:`sample`)."""
    likelihood_noise = 0.3
    """The chance that a seat playing a model takes another action than the model would (in the likelihood)."""

    def __init__(self, game: BatchedGame, policy: Any) -> None:
        self.game = game
        self.policy = policy
        """The agent whose choices stand for the other seats' secret choices in a sampled deal."""

    # ----- the game's part ---------------------------------------------------------------------------------------
    def unsupported(self) -> str | None:
        """Why this game's configuration cannot be sampled (``None``: it can)."""
        return None

    def model(self, view: SeatView) -> Any:
        """The constraint model of ``view`` (:meth:`_model`), kept in the view's cache until the view grows."""
        cached = view.cache.get("model")
        if cached is not None and cached[0] == len(view):
            return cached[1]
        model = self._model(view)
        view.cache["model"] = (len(view), model)
        return model

    def _model(self, view: SeatView) -> Any:
        """The game's constraint model of ``view``: where each card the seat has not seen can be."""
        raise NotImplementedError

    def draw(self, view: SeatView, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Up to ``count`` stacked decks (``(k, deck_size)``) and first dealers (``(k,)``) drawn from ``view``'s
        constraint model, from ``seed`` alone."""
        raise NotImplementedError

    def secret_choice(self, state: BatchState, tables: np.ndarray, views: list[SeatView], seats: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
        """The secret action of seat ``seats[i]`` at sampled table ``tables[i]`` (whose view is ``views[i]``): by
        default the policy's choice from that seat's observation in the sampled deal."""
        sub = state.take(tables)
        obs = self.game.observe(sub, seats)
        return np.asarray(call_agent(self.policy, obs, sub.legal_action_mask, rng), np.int64)

    # ----- sampling ----------------------------------------------------------------------------------------------
    def sample(self, views: list[SeatView], counts: np.ndarray, seeds: np.ndarray,
               likelihood: tuple[np.ndarray, np.ndarray] | None = None) -> Samples:
        """About ``counts[v]`` deals consistent with ``views[v]`` (at most that many), drawn from ``seeds[v]``.

        ``likelihood = (style, random)``, two ``(V, n)`` arrays: seat ``p`` of view ``v`` is modelled as playing judge
        ``style[v, p]`` (-1: not weighed) except random legal moves with probability ``random[v, p]``; each kept
        deal's ``logw`` is then the log-likelihood of the other seats' public actions of the :attr:`weighed_kinds` in
        it: ``random / legal + (1 - random) ((1 - noise) [the judge chose it] + noise / legal)`` per action, with
        :attr:`likelihood_noise`. Weighting the deals by it leans them towards the hands the seats' actions suggest
        (a bet from a player who bets strong hands)."""
        self._lik = likelihood
        counts = np.asarray(counts, np.int64)
        v_count = len(views)
        drawn = np.zeros(v_count, np.int64)
        kept = np.zeros(v_count, np.int64)
        passed = np.zeros(v_count, np.int64)  # decks that reproduced the view (kept or not)
        states, owners, kept_decks, kept_dealers, kept_actions, kept_logw = [], [], [], [], [], []
        rngs = [np.random.default_rng(int(s)) for s in seeds]
        for _ in range(self.max_rounds):
            need = counts - kept
            if (need <= 0).all():
                break
            decks, dealers, owner = [], [], []
            for v, view in enumerate(views):
                if need[v] <= 0:
                    continue
                rate = max(float(view.cache.get("acceptance", 0.5)), 1.0 / self.max_draw_factor)
                want = min(int(math.ceil(need[v] / rate * 1.2)) + 1, int(need[v]) * self.max_draw_factor)
                d, dl = self.draw(view, want, int(rngs[v].integers(2**63)))
                drawn[v] += want
                if len(d):
                    decks.append(d)
                    dealers.append(dl)
                    owner.append(np.full(len(d), v, np.int64))
            if not decks:
                break
            owner_arr = np.concatenate(owner)
            all_decks, all_dealers = np.concatenate(decks), np.concatenate(dealers)
            state, ok, played, agree, inv_legal, logw = self._replay(views, all_decks, all_dealers, owner_arr, rngs)
            if self.judges:
                self._note_evidence(views, owner_arr, ok, agree, inv_legal)
            # keep at most the deals still needed per view, in drawing order
            rank = np.zeros(len(owner_arr), np.int64)
            for v in np.unique(owner_arr[ok]).tolist():
                rows = np.flatnonzero(ok & (owner_arr == v))
                rank[rows] = np.arange(rows.size)
            keep = ok & (rank < need[owner_arr])
            kept += np.bincount(owner_arr[keep], minlength=v_count)
            passed += np.bincount(owner_arr[ok], minlength=v_count)
            if keep.any():
                idx = np.flatnonzero(keep)
                states.append(state.take(idx))
                owners.append(owner_arr[idx])
                kept_decks.append(all_decks[idx])
                kept_dealers.append(all_dealers[idx])
                kept_actions += [played[i, : len(views[owner_arr[i]])].tolist() for i in idx.tolist()]
                kept_logw.append(logw[idx])
        for v, view in enumerate(views):
            if drawn[v]:
                view.cache["acceptance"] = max(passed[v] / drawn[v], 0.01)
        if not states:
            return Samples(None, np.zeros(0, np.int64), drawn, kept, passed)
        return Samples(concat_states(states), np.concatenate(owners), drawn, kept, passed, np.concatenate(kept_decks),
                       np.concatenate(kept_dealers), kept_actions, np.concatenate(kept_logw))

    @staticmethod
    def _note_evidence(views: list[SeatView], owner: np.ndarray, ok: np.ndarray, agree: np.ndarray,
                       inv_legal: np.ndarray) -> None:
        """Add to each view's ``cache["evidence"]`` one ``(seat, q, mean 1/legal)`` per public action of another seat
        not scored before: ``q[j]`` the share of the deals that reproduced the view in which judge ``j``, in that
        seat's place, would have taken the action it took (the steps up to ``cache["scored"]`` are done)."""
        for v, view in enumerate(views):
            rows = np.flatnonzero(ok & (owner == v))
            start = int(view.cache.get("scored", 0))
            if not rows.size or start >= len(view):
                continue
            evidence = view.cache.setdefault("evidence", [])
            for k in range(start, len(view)):
                got = agree[rows, k]
                if np.isnan(got).all():
                    continue
                evidence.append((view.actors[k], np.nanmean(got, axis=0), float(np.nanmean(inv_legal[rows, k]))))
            view.cache["scored"] = len(view)

    def _replay(self, views: list[SeatView], decks: np.ndarray, dealers: np.ndarray, owner: np.ndarray,
                rngs: list[np.random.Generator]) -> tuple[BatchState, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Deal ``decks`` and replay each one's view: the tables, ``ok[i]`` (sample ``i`` reproduced its view), the
        actions played at each table (``(T, longest)``) and, for the other seats' public actions of the steps not
        scored yet, whether each of the :attr:`judges` would have chosen them (``(T, longest, judges)``, 1/0, NaN
        elsewhere) and 1 / the number of legal actions (``(T, longest)``)."""
        game = self.game
        t_count = len(decks)
        state = game.init(np.arange(t_count, dtype=np.uint64), decks=decks, dealers=dealers)
        seat = np.array([views[v].seat for v in owner], np.int64)
        lengths = np.array([len(v) for v in views], np.int64)
        hist = [v.observations() for v in views]
        offsets = np.concatenate([[0], np.cumsum([h.shape[0] for h in hist])])
        stacked = np.concatenate(hist)
        longest = int(lengths.max()) if len(lengths) else 0
        actors = np.full((len(views), max(longest, 1)), -1, np.int64)
        actions = np.full((len(views), max(longest, 1)), -1, np.int64)
        for v, view in enumerate(views):
            actors[v, : len(view)] = view.actors
            actions[v, : len(view)] = view.actions
        forced_count, forced_seat, forced_action = _forced_arrays(views, max(longest, 1))
        ok = np.ones(t_count, bool)
        played = np.full((t_count, max(longest, 1)), -1, np.int64)
        agree = np.full((t_count, max(longest, 1), max(len(self.judges), 1)), np.nan, np.float32)
        inv_legal = np.full((t_count, max(longest, 1)), np.nan, np.float32)
        scored = np.array([int(v.cache.get("scored", 0)) for v in views], np.int64)
        logw = np.zeros(t_count)
        lik_style, lik_random = self._likelihood(views)
        weigh, noise = self._weigh(), float(self.likelihood_noise)
        obs = game.observe(state, seat)
        ok &= (obs == stacked[offsets[owner]]).all(axis=1)
        rng = rngs[0] if rngs else np.random.default_rng(0)
        for k in range(longest):
            live = np.flatnonzero(ok & (lengths[owner] > k))
            if not live.size:
                break
            who = actors[owner[live], k]
            act = actions[owner[live], k].copy()
            right = (state.current_player[live] == who) & ~state.done[live]
            ok[live[~right]] = False
            live, who, act = live[right], who[right], act[right]
            secret = np.flatnonzero(act < 0)
            if secret.size:
                act[secret] = self.secret_choice(state, live[secret], [views[owner[t]] for t in live[secret]],
                                                 who[secret], rng)
            legal = (act >= 0) & (act < game.num_actions)
            legal[legal] = state.legal_action_mask[live[legal], act[legal]]
            ok[live[~legal]] = False
            live, act, who = live[legal], act[legal], who[legal]
            if not live.size:
                continue
            if self.judges:
                judge = np.flatnonzero((who != seat[live]) & (actions[owner[live], k] >= 0)
                                       & (scored[owner[live]] <= k))
                if judge.size:
                    sub = state.take(live[judge])
                    seen = game.observe(sub, who[judge])
                    for j, model in enumerate(self.judges):
                        guess = np.asarray(call_agent(model, seen, sub.legal_action_mask, rng), np.int64)
                        agree[live[judge], k, j] = guess == act[judge]
                    inv_legal[live[judge], k] = 1.0 / sub.legal_action_mask.sum(axis=1)
            weighed = np.flatnonzero((who != seat[live]) & (actions[owner[live], k] >= 0)
                                     & (lik_style[owner[live], who] >= 0) & weigh[act])
            if weighed.size:
                sub = state.take(live[weighed])
                seen = game.observe(sub, who[weighed])
                count = sub.legal_action_mask.sum(axis=1)
                style = lik_style[owner[live[weighed]], who[weighed]]
                rnd = lik_random[owner[live[weighed]], who[weighed]]
                for j in np.unique(style).tolist():
                    at = np.flatnonzero(style == j)
                    guess = np.asarray(call_agent(self.judges[j], seen[at], sub.legal_action_mask[at], rng), np.int64)
                    hit = np.where(guess == act[weighed[at]], 1.0 - noise, 0.0)
                    like = rnd[at] / count[at] + (1.0 - rnd[at]) * (hit + noise / count[at])
                    logw[live[weighed[at]]] += np.where(count[at] > 1, np.log(like), 0.0)
            played[live, k] = act
            game.step(state, act, tables=live)
            ok[live] &= _same_forced(state, live, forced_count[owner[live], k], forced_seat[owner[live], k],
                                     forced_action[owner[live], k])
            obs = game.observe(state.take(live), seat[live]) if live.size < t_count else game.observe(state, seat)
            ok[live] &= (obs == stacked[offsets[owner[live]] + k + 1]).all(axis=1)
        ok &= state.current_player == seat
        return state, ok, played, agree, inv_legal, logw

    def _likelihood(self, views: list[SeatView]) -> tuple[np.ndarray, np.ndarray]:
        """The ``(style, random)`` arrays of the call's likelihood (``style`` all -1 without one)."""
        n = self.game.num_players
        lik = getattr(self, "_lik", None)
        if lik is None:
            return np.full((len(views), n), -1, np.int64), np.zeros((len(views), n))
        return np.ascontiguousarray(lik[0], np.int64), np.ascontiguousarray(lik[1], np.float64)

    def _weigh(self) -> np.ndarray:
        """``(num_actions,) bool``: the actions of the :attr:`weighed_kinds`."""
        from envs.core.game import action_kind

        cached = self.__dict__.get("_weigh_mask")
        if cached is None:
            kinds = set(self.weighed_kinds)
            cached = np.array([action_kind(name) in kinds for name in self.game.action_names()], bool)
            self.__dict__["_weigh_mask"] = cached
        return cached
