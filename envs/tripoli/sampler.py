"""Tripoli deals consistent with what one seat knows (a :class:`~envs.seatview.SeatView`), for search players.

The replay and the check are :class:`envs.core.sampling.DealSampler`'s; this module builds the *constraint model*
of the cards the seat has not seen and draws stacked decks from it. Everything is read from the view: the seat's
observations of the deal and the public actions, never the state.

**Slots.** A deal gives ``n + 1`` hands (T5): slot ``j < n`` is the ``j``-th hand dealt (seat ``dealer + 1 + j``),
slot ``n`` the spare. The spare-hand phase (T6–T7) moves whole hands between seats, publicly, so which slot each seat
holds afterwards is found by replaying the phase's public actions on a probe table dealt ``0, 1, …, 51`` (card ``i``
in slot ``i mod (n + 1)``); the slots nobody holds then are out of play (T9: the spare, a dead hand).

**What is fixed.** The seat's first hand (its slot at the deal), its hand after the spare phase (its current hand
and the cards it played), the cards every other seat played (T24) or showed at the showdown (T16), the dead cards
shown face up (T7 ``dead_hand='shown'``).

**What the public events imply.**

- *Stops* (T21): the card above the top of every run of played cards (not an ace) was held by nobody, so it is
  out of play.
- *Leads* (T20): a lead plays the leader's lowest card of the suit, so the leader held no lower card of it.
- *Pay cards* (T10, paid on the deal): the spaces taken and each seat's chips at the step the pay cards were paid
  say who holds each pay card, the king-queen, and who holds a sequence; every assignment of the unseen pay cards
  to seats that gives the same chips is listed, weighted by how many deals complete it, and one is drawn per deck;
  each seat it says holds a sequence gets the 8-9-10 of a suit it can hold (T27 start).

Everything else (a seat without a sequence, a lead passed on, the other seats' poker selections) is left to the
replay's check. Configurations the model does not cover (several deals per episode, Cosmo) are refused by
:meth:`TripoliSampler.unsupported`.
"""

from __future__ import annotations

import dataclasses
import itertools

import numba
import numpy as np

from envs.core import play
from envs.core.agent import call_agent
from envs.core.bits import lowest
from envs.core.game import BatchState
from envs.core.sampling import DealSampler, place_cards, write_deck
from envs.seatview import SeatView
from envs.tripoli import kernels as K
from envs.tripoli.observation import OBSERVATION_SIZE, OFFSETS, SCALARS, _observe_tables
from envs.tripoli.policy import decide
from envs.tripoli.state import (
    NUM_PHASES,
    P_AUCTION,
    P_LEAD,
    P_RUN,
    P_SPARE,
    PAY_RANKS,
    SPACE_KQ,
    SPACE_SEQUENCE,
)

HEARTS = 2
RANK_KING, RANK_QUEEN = 11, 10


def _masks(planes: np.ndarray) -> np.ndarray:
    """``(..., 52)`` 0/1 card planes → ``(...,)`` uint64 card masks."""
    packed = np.packbits(np.asarray(planes) > 0.5, axis=-1, bitorder="little")
    padded = np.zeros(packed.shape[:-1] + (8,), np.uint8)
    padded[..., :7] = packed
    return padded.view("<u8")[..., 0].astype(np.uint64)


def _cards(mask: int | np.uint64) -> list[int]:
    m = int(mask)
    return [c for c in range(52) if (m >> c) & 1]


class _Reader:
    """Absolute-seat readings of one seat's observations (rows of ``obs``)."""

    def __init__(self, obs: np.ndarray, n: int, me: int) -> None:
        self.obs, self.n, self.me = obs, n, me
        self.rel = [(s - me) % n for s in range(n)]  # absolute seat -> relative index

    def block(self, name: str) -> np.ndarray:
        lo, hi = OFFSETS[name]
        return self.obs[..., lo:hi]

    def cards(self, name: str) -> np.ndarray:
        return _masks(self.block(name))

    def seat_cards(self, name: str) -> np.ndarray:
        """``(..., n)`` card masks by absolute seat."""
        planes = self.block(name).reshape(self.obs.shape[:-1] + (9, 52))
        return _masks(planes)[..., self.rel]

    def seat_values(self, name: str) -> np.ndarray:
        return self.block(name)[..., self.rel]

    def seat(self, name: str) -> np.ndarray:
        """The absolute seat of a one-hot relative seat (-1: none)."""
        hot = self.block(name)[..., : self.n]
        rel = np.argmax(hot, axis=-1)
        return np.where(hot.max(axis=-1) > 0, (rel + self.me) % self.n, -1)

    def scalar(self, name: str) -> np.ndarray:
        return self.obs[..., OFFSETS["scalars"][0] + SCALARS.index(name)]

    def phase(self) -> np.ndarray:
        return np.argmax(self.block("phase")[..., :NUM_PHASES], axis=-1)


@dataclasses.dataclass
class TripoliModel:
    """Where each card may be, for one view (module docstring). Slots ``0 … n``; ``-1``: not fixed."""

    dealer: int
    fixed: np.ndarray
    """(52,) int64 — the slot of each card the seat knows the place of, else -1."""
    domain: np.ndarray
    """(52,) int64 — bit mask of the slots each card may be in."""
    sizes: np.ndarray
    """(n + 1,) int64 — cards dealt to each slot."""
    slot_of_seat: np.ndarray
    """(n,) int64 — the slot each seat holds after the spare phase."""
    enum_cards: np.ndarray
    """(m,) int64 — the unseen pay cards whose holder the pay step tells (up to an assignment)."""
    enum_slots: np.ndarray
    """(A, m) int64 — each assignment of those cards to slots."""
    enum_cum: np.ndarray
    """(A,) float64 — cumulative weights of the assignments."""
    qualifies: np.ndarray
    """(A, n + 1) bool — the slots holding a sequence (T10) under each assignment (the seat's own not included)."""
    seq_rank: int
    error: str | None = None
    """Why the view cannot be matched (an inconsistency: no deck is drawn)."""


@numba.njit(cache=True)
def _draw(fixed, domain, sizes, full, enum_cards, enum_slots, enum_cum, qualifies, seq_rank, slot_of_position,
          count, seed, decks):
    """Up to ``count`` decks drawn from a model into ``decks``; returns how many."""
    np.random.seed(seed)
    nslots = sizes.shape[0]
    done = 0
    loc = np.empty(52, np.int64)
    cap = np.empty(nslots, np.int64)
    for _ in range(count):
        loc[:] = fixed
        cap[:] = sizes
        bad = False
        for c in range(52):
            if loc[c] >= 0:
                cap[loc[c]] -= 1
        if enum_cum.shape[0] > 0:
            u = np.random.random() * enum_cum[-1]
            a = 0
            while a < enum_cum.shape[0] - 1 and enum_cum[a] <= u:
                a += 1
            for j in range(enum_cards.shape[0]):
                s = enum_slots[a, j]
                loc[enum_cards[j]] = s
                cap[s] -= 1
            for k in range(nslots):
                if not qualifies[a, k]:
                    continue
                options = np.zeros(4, np.int64)
                n_opt = 0
                for suit in range(4):
                    need = 0
                    fits = True
                    for i in range(3):
                        c = suit * 13 + seq_rank + i
                        if loc[c] == -1:
                            if (domain[c] >> k) & 1:
                                need += 1
                            else:
                                fits = False
                        elif loc[c] != k:
                            fits = False
                    if fits and need <= cap[k]:
                        options[n_opt] = suit
                        n_opt += 1
                if n_opt == 0:
                    bad = True
                    break
                suit = options[np.random.randint(0, n_opt)]
                for i in range(3):
                    c = suit * 13 + seq_rank + i
                    if loc[c] == -1:
                        loc[c] = k
                        cap[k] -= 1
        for k in range(nslots):
            if cap[k] < 0:
                bad = True
        if bad or not place_cards(loc, domain, cap, full):
            continue
        write_deck(loc, slot_of_position, decks[done])
        done += 1
    return done


@numba.njit(cache=True)
def _same_row(row, hist, at):
    for i in range(row.shape[0]):
        if row[i] != hist[at, i]:
            return False
    return True


@numba.njit(cache=True)
def _replay_tables(rec, r, x, seat, owner, lengths, actors, actions, hist, offsets, shown, scored, judges, n_judges,
                   prm, table, num_deals, lik_style, lik_random, weigh, noise, ok, played, agree, inv_legal, logw):
    """:meth:`DealSampler._replay` in compiled code, table by table: the view's actions (another seat's secret poker
    selection: the cards it showed, else the policy's choice), the seat's observation checked after every step, the
    agreement of the first ``n_judges`` of ``judges`` with the other seats' public actions of the steps from
    ``scored``, and the log-likelihood of the other seats' public actions of the kinds ``weigh`` under their models
    (``lik_style``, ``lik_random``; see :meth:`DealSampler.sample`)."""
    row = np.empty((1, OBSERVATION_SIZE), np.float32)
    viewer = np.empty(1, np.int64)
    select = prm.select
    for t in range(rec.shape[0]):
        v = owner[t]
        me = seat[t]
        tr = rec[t]
        viewer[0] = me
        _observe_tables(viewer, row, rec[t : t + 1], r.n, num_deals)
        good = _same_row(row[0], hist, offsets[v])
        k = 0
        while good and k < lengths[v]:
            p = actors[v, k]
            if tr.terminated or tr.truncated or tr.current_player != p:
                good = False
                break
            a = actions[v, k]
            if a < 0:
                legal = shown[v, p] & ~tr.selected[p] & tr.hands[p]
                if shown[v, p] != 0:
                    a = select + lowest(legal) if legal != 0 else -1
                else:
                    viewer[0] = p
                    _observe_tables(viewer, row, rec[t : t + 1], r.n, num_deals)
                    a = decide(row[0], K.legal_mask(tr, r), prm, table)
            elif p != me:
                score = n_judges > 0 and k >= scored[v]
                like = lik_style[v, p] >= 0 and weigh[a]
                if score or like:
                    viewer[0] = p
                    _observe_tables(viewer, row, rec[t : t + 1], r.n, num_deals)
                    count = 0
                    mask = K.legal_mask(tr, r)
                    for j in range(mask.shape[0]):
                        count += mask[j]
                    if score:
                        for j in range(n_judges):
                            guess = decide(row[0], mask, judges[j], table)
                            agree[t, k, j] = 1.0 if guess == a else 0.0
                        inv_legal[t, k] = 1.0 / count
                    if like and count > 1:
                        guess = decide(row[0], mask, judges[lik_style[v, p]], table)
                        hit = (1.0 - noise) if guess == a else 0.0
                        rnd = lik_random[v, p]
                        logw[t] += np.log(rnd / count + (1.0 - rnd) * (hit + noise / count))
            if a < 0 or a > r.continue_run or not tr.legal_action_mask[a]:
                good = False
                break
            played[t, k] = a
            play.start_step(tr, x, t)
            over = K.apply(tr, r, x, t, a)
            while over:
                over = K.end_deal(tr, r, x, t)
            while not K.settle(tr, r, x, t):
                x.forced_count[t] = 0
            viewer[0] = me
            _observe_tables(viewer, row, rec[t : t + 1], r.n, num_deals)
            good = _same_row(row[0], hist, offsets[v] + k + 1)
            k += 1
        ok[t] = good and tr.current_player == me


class TripoliSampler(DealSampler):
    """Tripoli deals consistent with a seat view (module docstring). With a compiled policy (one with ``policy`` and
    ``table`` attributes, ``agents/tripoli_rollout.py: TripoliCompiled``) the replay runs in compiled code
    (:func:`_replay_tables`), with the same result as the generic one. The public actions that say something of a
    seat's poker hand — the spare-hand choices, bids and bets — are the ones a likelihood weighs
    (:attr:`weighed_kinds`)."""

    weighed_kinds = ("keep", "swap", "auction", "pass", "bid", "check", "call", "fold", "bet", "raise")

    def unsupported(self) -> str | None:
        cfg = self.game.config
        if cfg.num_deals > 1:
            return "several deals per episode (num_deals > 1)"
        if cfg.cosmo:
            return "Cosmo (cosmo=True)"
        return None

    # ----- the model ---------------------------------------------------------------------------------------------
    def slots_held(self, view: SeatView, dealer: int) -> np.ndarray | None:
        """The slot each seat holds after the spare-hand phase (so far), from its public actions; ``None`` if they do
        not replay."""
        game, n = self.game, self.game.num_players
        probe = game.init(0, decks=np.arange(52)[None], dealers=np.array([dealer]))
        for action in view.actions:
            if probe.phase[0] not in (P_SPARE, P_AUCTION) or probe.done[0]:
                break
            if action < 0 or not probe.legal_action_mask[0, action]:
                return None
            game.step(probe, np.array([action]))
        held = np.empty(n, np.int64)
        for p in range(n):
            hand = int(probe.hands[0, p])
            held[p] = ((hand & -hand).bit_length() - 1) % (n + 1)
        return held

    def _model(self, view: SeatView) -> TripoliModel:
        game, cfg = self.game, self.game.config
        n, me = game.num_players, view.seat
        hist = view.observations()
        rd = _Reader(hist, n, me)
        first, last = _Reader(hist[0], n, me), _Reader(hist[-1], n, me)
        dealer = int(first.seat("dealer"))
        nslots = n + 1
        full = (1 << nslots) - 1
        sizes = np.array([52 // nslots + (k < 52 % nslots) for k in range(nslots)], np.int64)
        fixed = np.full(52, -1, np.int64)
        domain = np.full(52, full, np.int64)
        empty = np.zeros((0,), np.int64)

        def fail(why: str) -> TripoliModel:
            return TripoliModel(dealer, fixed, domain, sizes, np.zeros(n, np.int64), empty, np.zeros((0, 0), np.int64),
                                np.zeros(0), np.zeros((0, nslots), bool), 0, error=why)

        held = self.slots_held(view, dealer)
        if held is None:
            return fail("the spare-hand actions do not replay")
        out_slots = [k for k in range(nslots) if k not in set(held.tolist())]
        out_mask = sum(1 << k for k in out_slots)

        def fix(mask: int | np.uint64, slot: int) -> bool:
            for c in _cards(mask):
                if fixed[c] >= 0 and fixed[c] != slot:
                    return False
                fixed[c] = slot
            return True

        played_by = last.seat_cards("played_by")
        shown = last.seat_cards("shown")
        mine = int(last.cards("hand")) | int(played_by[me])
        ok = fix(first.cards("hand"), (me - dealer - 1) % n) and fix(mine, int(held[me]))
        for p in range(n):
            if p != me:
                ok = ok and fix(played_by[p], int(held[p])) and fix(shown[p], int(held[p]))
        dead_shown = int(last.cards("dead_shown"))
        if dead_shown:  # n seats hold n of the n + 1 slots: the dead hand is the one left
            ok = ok and len(out_slots) == 1 and fix(dead_shown, out_slots[0])
        if not ok:
            return fail("a card is seen in two places")

        played = int(last.cards("played"))
        # stops (T21): the card above the top of a run of played cards was held by nobody
        phase_now = int(last.phase())
        last_card = np.flatnonzero(last.block("last_card"))
        running = int(last_card[0]) if phase_now == P_RUN and last_card.size else -1
        for suit in range(4):
            for rank in range(12):
                c = suit * 13 + rank
                if (played >> c) & 1 and not (played >> (c + 1)) & 1:
                    if running >= 0 and running // 13 == suit and _top_of_run(played, running) == c:
                        continue
                    domain[c + 1] &= out_mask
        # leads (T20): the leader held no lower card of the suit. With forced moves played by the engine a lead's
        # whole run is played in its step, so the lowest card of each block of cards a step added is a lead (blocks
        # of two runs that touch are taken for one: a lead missed, never a wrong one); else a step is one card.
        steps = len(view)
        if steps:
            pb = rd.seat_cards("played_by")  # (K + 1, n)
            lead0 = game.actions.lead
            for k in range(1, steps + 1):
                if not cfg.auto_forced and not lead0 <= view.actions[k - 1] < lead0 + 4:
                    continue
                added = [int(pb[k, p]) & ~int(pb[k - 1, p]) for p in range(n)]
                union = 0
                for a in added:
                    union |= a
                for suit in range(4):
                    ranks = (union >> (13 * suit)) & 0x1FFF
                    while ranks:
                        low = (ranks & -ranks).bit_length() - 1
                        ranks &= ~(ranks & ~(ranks + (1 << low)))  # drop the block starting at ``low``
                        card = suit * 13 + low
                        leader = _who(added, card)
                        for y in range(suit * 13, card):
                            if fixed[y] < 0 and leader >= 0:
                                domain[y] &= full & ~(1 << int(held[leader]))
        # pay cards (T10), paid on the hands after the spare phase
        enum = self._pay_facts(view, rd, hist, held, fixed, domain, sizes, out_mask)
        if isinstance(enum, str):
            return fail(enum)
        enum_cards, enum_slots, enum_cum, qualifies = enum
        for c in range(52):
            if fixed[c] >= 0 and not (domain[c] >> fixed[c]) & 1:
                return fail("a fixed card is where the public events say it cannot be")
        return TripoliModel(dealer, fixed, domain, sizes, held, enum_cards, enum_slots, enum_cum, qualifies,
                            int(round(float(last.scalar("sequence_start")))) - 2)

    def _pay_facts(self, view, rd, hist, held, fixed, domain, sizes, out_mask):
        """The assignments of the unseen pay cards that give the chips seen at the pay step (module docstring), as
        ``(cards, slots per assignment, cumulative weights, sequence slots per assignment)``, or a reason."""
        cfg, n, me = self.game.config, self.game.num_players, view.seat
        nslots = n + 1
        none = (np.zeros(0, np.int64), np.zeros((0, 0), np.int64), np.zeros(0), np.zeros((0, nslots), bool))
        if cfg.pays_in_play:
            return none
        phases = rd.phase()
        spare = (P_SPARE, P_AUCTION)
        layout, balance = rd.block("layout"), rd.seat_values("balance")
        if phases[0] in spare:
            k = next((i for i in range(1, len(phases)) if phases[i] not in spare), None)
            if k is None:
                return none  # not paid yet
            before_layout, after_layout = layout[k - 1], layout[k]
            delta = balance[k] - balance[k - 1]
            if phases[k - 1] == P_AUCTION:  # the auction ended in this step: the winner paid the dealer (T7)
                after = _Reader(hist[k], n, me)
                bid, winner = int(after.scalar("high_bid")), int(after.seat("high_bidder"))
                dealer = int(after.seat("dealer"))
                if bid > 0 and winner >= 0:
                    delta = delta.copy()
                    delta[winner] += bid
                    delta[dealer] -= bid
        else:  # paid while dealing (no spare-hand phase): the ante alone came before
            before_layout = np.full(9, float(n))
            after_layout = layout[0]
            delta = balance[0] + 9
        delta = np.rint(delta).astype(np.int64)
        before_layout = np.rint(before_layout).astype(np.int64)
        after_layout = np.rint(after_layout).astype(np.int64)
        owner_of_slot = {int(held[p]): p for p in range(n)}
        pay_cards = [HEARTS * 13 + int(r) for r in PAY_RANKS]
        holders: list[list[int]] = []
        unknown: list[int] = []
        for space, c in enumerate(pay_cards):
            taken = after_layout[space] == 0 and before_layout[space] > 0
            if fixed[c] >= 0:
                h = owner_of_slot.get(int(fixed[c]), -1)
                if (h >= 0) != bool(taken):
                    return "a pay card's space does not match where it is known to be"
                holders.append([h])
            elif not taken:
                domain[c] &= out_mask
                holders.append([-1])
            else:
                cands = [p for p in range(n) if p != me and (domain[c] >> int(held[p])) & 1]
                if not cands:
                    return "a pay card taken by nobody it can be with"
                holders.append(cands)
                unknown.append(space)
        seq_start = int(round(float(_Reader(hist[-1], n, me).scalar("sequence_start")))) - 2
        my_hand = 0
        for c in range(52):
            if fixed[c] == held[me]:
                my_hand |= 1 << c
        i_qualify = any((my_hand >> (s * 13 + seq_start)) & 7 == 7 for s in range(4))
        free = sizes.copy()
        for c in range(52):
            if fixed[c] >= 0:
                free[fixed[c]] -= 1
        options, weights, quals = [], [], []
        chips_seq = int(before_layout[SPACE_SEQUENCE])
        for combo in itertools.product(*holders):
            gain = np.zeros(n, np.int64)
            for space, h in enumerate(combo):
                if h >= 0:
                    gain[h] += before_layout[space]
            k_h, q_h = combo[1], combo[2]  # K and Q of the pay suit (spaces 1 and 2)
            kq = k_h >= 0 and k_h == q_h
            if kq != (after_layout[SPACE_KQ] == 0 and before_layout[SPACE_KQ] > 0):
                continue
            if kq:
                gain[k_h] += before_layout[SPACE_KQ]
            rest = delta - gain
            qual = [p for p in range(n) if p != me and rest[p] != 0]
            q = len(qual) + int(i_qualify)
            if q:
                share = chips_seq // q
                if any(rest[p] != share for p in qual) or rest[me] != (share if i_qualify else 0):
                    continue
                if after_layout[SPACE_SEQUENCE] != chips_seq - share * q:
                    continue
            elif rest[me] != 0 or after_layout[SPACE_SEQUENCE] != chips_seq:
                continue
            slots = [int(held[combo[s]]) for s in unknown]
            weight = 1.0
            placed: dict[int, int] = {}
            for s in slots:
                placed[s] = placed.get(s, 0) + 1
            for s, m in placed.items():
                for i in range(m):
                    weight *= max(int(free[s]) - i, 0)
            if weight <= 0:
                continue
            options.append(slots)
            weights.append(weight)
            mask = np.zeros(nslots, bool)
            for p in qual:
                mask[int(held[p])] = True
            quals.append(mask)
        if not options:
            return "no holder of the pay cards gives the chips seen"
        cards = np.array([pay_cards[s] for s in unknown], np.int64)
        return (cards, np.array(options, np.int64).reshape(len(options), len(unknown)),
                np.cumsum(np.array(weights, np.float64)), np.array(quals, bool).reshape(len(options), nslots))

    # ----- drawing -----------------------------------------------------------------------------------------------
    def draw(self, view: SeatView, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        model = self.model(view)
        if model.error is not None:
            return np.zeros((0, 52), np.int64), np.zeros(0, np.int64)
        n = self.game.num_players
        decks = np.empty((count, 52), np.int64)
        slot_of_position = np.arange(52, dtype=np.int64) % (n + 1)
        done = _draw(model.fixed, model.domain, model.sizes, (1 << (n + 1)) - 1, model.enum_cards, model.enum_slots,
                     model.enum_cum, model.qualifies, model.seq_rank, slot_of_position, count, seed, decks)
        return decks[:done], np.full(done, model.dealer, np.int64)

    def _replay(self, views, decks, dealers, owner, rngs):
        prm, table = getattr(self.policy, "policy", None), getattr(self.policy, "table", None)
        judges = tuple(getattr(j, "policy", None) for j in self.judges)
        if prm is None or table is None or None in judges:
            return super()._replay(views, decks, dealers, owner, rngs)
        game, n = self.game, self.game.num_players
        t_count = len(decks)
        state = game.init(np.arange(t_count, dtype=np.uint64), decks=decks, dealers=dealers)
        rec, rules, extra = game.kernel_args(state)
        longest = max(1, max(len(v) for v in views))
        actors = np.full((len(views), longest), -1, np.int64)
        actions = np.full((len(views), longest), -1, np.int64)
        for i, view in enumerate(views):
            actors[i, : len(view)] = view.actors
            actions[i, : len(view)] = view.actions
        hist = [v.observations() for v in views]
        offsets = np.concatenate([[0], np.cumsum([h.shape[0] for h in hist])]).astype(np.int64)
        shown = np.stack([self._shown(v) for v in views]).astype(np.uint64)
        ok = np.zeros(t_count, bool)
        logw = np.zeros(t_count)
        lik_style, lik_random = self._likelihood(views)
        played = np.full((t_count, longest), -1, np.int64)
        agree = np.full((t_count, longest, max(len(judges), 1)), np.nan, np.float32)
        inv_legal = np.full((t_count, longest), np.nan, np.float32)
        _replay_tables(rec, rules, extra, np.array([views[o].seat for o in owner], np.int64), owner.astype(np.int64),
                       np.array([len(v) for v in views], np.int64), actors, actions, np.concatenate(hist), offsets,
                       shown.reshape(len(views), n), np.array([int(v.cache.get("scored", 0)) for v in views], np.int64),
                       judges or (prm,), len(judges), prm, table, int(game.config.num_deals), lik_style, lik_random,
                       self._weigh(), float(self.likelihood_noise), ok, played, agree, inv_legal, logw)
        return state, ok, played, agree, inv_legal, logw

    def secret_choice(self, state: BatchState, tables: np.ndarray, views: list[SeatView], seats: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
        """A seat's poker selection (T12): the cards it showed later, if it did; else the policy's choice."""
        game = self.game
        sub = state.take(tables)
        obs = game.observe(sub, seats)
        actions = np.asarray(call_agent(self.policy, obs, sub.legal_action_mask, rng), np.int64).copy()
        shown = np.array([self._shown(view)[p] for view, p in zip(views, seats.tolist(), strict=True)], np.uint64)
        rows = np.flatnonzero(shown)
        if rows.size:
            select = game.actions.select
            legal = _masks(sub.legal_action_mask[rows, select : select + 52])
            wanted = legal & shown[rows]
            low = wanted & (~wanted + np.uint64(1))
            card = np.array([int(x).bit_length() - 1 for x in low.tolist()], np.int64)
            actions[rows] = np.where(wanted != 0, select + card, -1)
        return actions

    def _shown(self, view: SeatView) -> np.ndarray:
        """(n,) the cards each seat showed at the showdown, as the view's last observation has them."""
        cached = view.cache.get("tripoli_shown")
        if cached is None or cached[0] != len(view):
            cached = (len(view), _Reader(view.last, self.game.num_players, view.seat).seat_cards("shown"))
            view.cache["tripoli_shown"] = cached
        return cached[1]


def _who(added: list[int], card: int) -> int:
    """The seat whose added cards hold ``card`` (-1: none)."""
    for p, a in enumerate(added):
        if (a >> card) & 1:
            return p
    return -1


def _top_of_run(played: int, card: int) -> int:
    """The highest card of the block of consecutive played cards of ``card``'s suit that holds ``card``."""
    top = card
    while top % 13 < 12 and (played >> (top + 1)) & 1:
        top += 1
    return top


__all__ = ["TripoliModel", "TripoliSampler", "P_LEAD"]
