"""The search player at Le triolet: the sampler against real deals (the seat's observation and the public history
kept, the real deal inside the constraint model), the same decision from the same view, legal play (docs/agents.md)."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from agents.registry import make_agent
from agents.search import SearchAgent
from envs.registry import make_game
from envs.seatview import SeatView
from envs.triolet import observation as V
from envs.triolet.actions import PICK_UP, PLAY_FACEDOWN, PLAY_FACEUP, PLAYABLE
from envs.triolet.moves import step_moves
from envs.triolet.sampler import TrioletSampler
from tests.search_helpers import replay, same_view, seat_decisions
from training.evaluate import evaluate

GAME = make_game("triolet", 4)
POLICY = make_agent("heuristic", GAME)
SEAT_PLANES = (V.FACEUP, V.KNOWN)


def decisions(deck: np.ndarray, dealer: int, game=GAME, seat: int = 0):
    """Play a stacked deal with the heuristic at every seat; yield each decision of ``seat`` with a choice."""
    return seat_decisions(game, POLICY if game is GAME else make_agent("heuristic", game), deck, dealer, seat)


def seen_cards(view: SeatView) -> set[int]:
    """Every card that appeared in any card plane of any of the seat's observations."""
    hist = view.observations()
    planes = [hist[:, V.OWN_HAND : V.OWN_HAND + 52], hist[:, V.PILE : V.PILE + 52], hist[:, V.BURNED : V.BURNED + 52]]
    for j in range(GAME.num_players):
        for at in SEAT_PLANES:
            lo = V.SEATS + V.SEAT_SIZE * j + at
            planes.append(hist[:, lo : lo + 52])
    return set(np.flatnonzero(np.concatenate(planes).any(axis=0)).tolist())


def public_steps(lines: list[dict], steps: int) -> list[tuple]:
    lines = [line for line in lines if line["type"] == "step"][:steps]
    return [(line["seat"], line["name"], line["events"], line["rewards"]) for line in lines]


@pytest.mark.parametrize("seed", [0, 1])
def test_deals_equal_from_the_seat_give_the_same_decision(seed: int) -> None:
    deck, dealer = np.random.default_rng(seed).permutation(GAME.deck_ids()), seed % 4
    checked = 0
    for point in decisions(deck, dealer):
        if checked >= 3:
            break
        unseen = sorted(set(GAME.deck_ids().tolist()) - seen_cards(point.view))
        rng = np.random.default_rng(seed)
        twin = None
        for _ in range(100):
            c1, c2 = rng.choice(unseen, 2, replace=False)
            other = deck.copy()
            i, j = int(np.flatnonzero(deck == c1)[0]), int(np.flatnonzero(deck == c2)[0])
            other[i], other[j] = c2, c1
            env = replay(GAME, other, dealer, point.actions)
            if env is not None and same_view(point.view, env.seat_view("player_0")) \
                    and not np.array_equal(env.state_.hand1, point.state.hand1):
                twin = env
                break
        if twin is None:
            continue
        a1, a2 = SearchAgent(GAME, playouts=40), SearchAgent(GAME, playouts=40)
        d1 = a1.act(point.obs, point.mask, np.random.default_rng(3), views=[point.view])
        d2 = a2.act(point.obs, point.mask, np.random.default_rng(3), views=[twin.seat_view("player_0")])
        assert d1.tolist() == d2.tolist() and a1.stats["searched"] == 1
        assert a1.stats["kept"] == a2.stats["kept"] and a1.stats["playouts"] == a2.stats["playouts"]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("seed", [2, 3])
def test_every_sampled_deal_shows_the_seat_what_it_saw(seed: int) -> None:
    deck, dealer = np.random.default_rng(seed).permutation(GAME.deck_ids()), seed % 4
    sampler = TrioletSampler(GAME, POLICY)
    differs = 0
    for point in list(decisions(deck, dealer))[:12]:
        samples = sampler.sample([point.view], np.array([8]), np.array([seed]))
        if samples.state is None:  # no deal reproduced the view (late in a game): the search falls back
            continue
        got = GAME.observe(samples.state, np.zeros(samples.state.batch_size, np.int64))
        assert (got == point.obs).all() and (samples.state.legal_action_mask == point.mask).all()
        assert (samples.state.hand1[:, 0] == point.state.hand1[0, 0]).all()
        differs += int((samples.state.hand1[:, 1:] != point.state.hand1[0, 1:]).any()
                       or (samples.state.facedown != point.state.facedown[0]).any())
        real = public_steps(point.lines, len(point.actions))
        for deck_s, dealer_s, acts in zip(samples.decks[:3], samples.dealers[:3], samples.actions[:3], strict=False):
            again = replay(GAME, deck_s, int(dealer_s), acts)
            assert again is not None and same_view(point.view, again.seat_view("player_0"))
            assert public_steps(again.recorder.lines, len(acts)) == real
    assert differs > 0


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_real_deal_always_fits_the_constraint_model(n: int) -> None:
    game = make_game("triolet", n)
    sampler = TrioletSampler(game, make_agent("heuristic", game))
    for seed in range(5):
        deck, dealer = np.random.default_rng(50 + seed).permutation(game.deck_ids()), seed % n
        for seat in (0, 1):
            for point in decisions(deck, dealer, game=game, seat=seat):
                model = sampler.model(point.view)
                assert model.error is None
                slot = np.full(52, -2, np.int64)
                slot[deck] = model.slot_of_position
                known = model.fixed >= 0
                assert (model.fixed[known] == slot[known]).all()
                dealt = slot >= 0
                assert ((model.domain[dealt] >> slot[dealt]) & 1).all()
                for place, card, smaller, gone in model.places:
                    assert sum(1 for c in range(card) if slot[c] == place and not (gone >> c) & 1) == smaller
                _, ok, *_ = sampler._replay([point.view], deck[None], np.array([dealer]), np.zeros(1, np.int64),
                                            [np.random.default_rng(0)])
                assert ok[0]


def test_search_plays_triolet_legally() -> None:
    result = evaluate(GAME, [make_agent("search:16", GAME)] + [make_agent("heuristic", GAME)] * 3, deals=4,
                      batch_size=4)
    assert result.decisions > 0
    two_decks = make_game("triolet", 6)
    agent = make_agent("search:8", two_decks)
    assert agent.why_not is not None  # two decks are not sampled: the heuristic plays
    evaluate(two_decks, [agent] + [make_agent("heuristic", two_decks)] * 5, deals=6, batch_size=6)


def test_views_keep_the_forced_moves_and_the_replay_requires_them() -> None:
    deck, dealer = np.random.default_rng(7).permutation(GAME.deck_ids()), 3
    point = list(decisions(deck, dealer))[-1]
    view = point.view
    assert len(view.forced) == len(view) and any(view.forced)
    real = GAME.init(np.zeros(1, np.uint64), decks=deck[None], dealers=np.array([dealer]))
    for a, moves in zip(view.actions, view.forced, strict=True):
        GAME.step(real, np.array([a]))
        count = int(real.forced_count[0])
        assert moves == tuple(zip(real.forced_seat[0, :count].tolist(), real.forced_action[0, :count].tolist(),
                                  strict=True))
    sampler = TrioletSampler(GAME, POLICY)
    k = next(k for k, moves in enumerate(view.forced) if moves)
    _, ok, *_ = sampler._replay([view], deck[None], np.array([dealer]), np.zeros(1, np.int64),
                                [np.random.default_rng(0)])
    assert ok[0]
    tampered = copy.deepcopy(view)
    tampered.forced[k] = tampered.forced[k][:-1]  # one forced move fewer: no deal shows it
    _, ok, *_ = sampler._replay([tampered], deck[None], np.array([dealer]), np.zeros(1, np.int64),
                                [np.random.default_rng(0)])
    assert not ok[0]


@pytest.mark.parametrize("seed", [4, 5])
def test_the_public_replay_of_each_step_adds_up(seed: int) -> None:
    deck, dealer = np.random.default_rng(seed).permutation(GAME.deck_ids()), seed % 4
    view = list(decisions(deck, dealer))[-1].view
    hist = view.observations()
    exact = 0
    for k in range(1, len(view) + 1):
        moves, ok = step_moves(view, hist, k)
        assert [(m.seat, m.action) for m in moves] == [(view.actors[k - 1], view.actions[k - 1]), *view.forced[k - 1]]
        turned = any(PLAY_FACEDOWN <= m.action < PICK_UP for m in moves)
        assert ok or turned  # only a face-down card leaves the public replay unsure
        if ok:
            exact += 1
            fell = int(hist[k - 1][V.STOCK] - hist[k][V.STOCK])
            assert sum(m.drew for m in moves) == fell
    assert exact > len(view) // 2


def forced_points(kind: str, seeds: range):
    """(view, step, move) of another seat's forced move of ``kind`` (``pickup`` or ``play``) at the seat's
    decisions, in the heuristic's deals from ``seeds``."""
    for seed in seeds:
        deck, dealer = np.random.default_rng(seed).permutation(GAME.deck_ids()), seed % 4
        view = list(decisions(deck, dealer))[-1].view
        hist = view.observations()
        for k in range(1, len(view) + 1):
            moves, ok = step_moves(view, hist, k)
            for m in moves:
                hit = m.action == PICK_UP if kind == "pickup" else m.action < PLAY_FACEUP
                if ok and m.forced and m.seat != 0 and m.hand > 0 and hit:
                    yield view, k, m


@pytest.mark.parametrize("kind", ["pickup", "play"])
def test_a_forced_move_leaves_no_other_playable_card_in_the_dealt_hand(kind: str) -> None:
    """A seat that had to pick up held no playable card; one whose play was forced held no other: the cards unseen
    at that step and playable on the pile's top are not in its dealt hand (L11, C8)."""
    sampler = TrioletSampler(GAME, POLICY)
    checked = 0
    for view, k, m in itertools.islice(forced_points(kind, range(20, 40)), 6):
        hist = view.observations()
        short = SeatView(view.game, view.num_players, view.seat, hist[0])  # the view as it was after step k
        for i in range(k):
            short.add(view.actors[i], view.actions[i], hist[i + 1], view.forced[i])
        model = sampler.model(short)
        assert model.error is None
        hand_slot = 6 * GAME.num_players + m.seat
        seen = seen_cards(short)
        playable = [c for c in GAME.deck_ids().tolist() if PLAYABLE[m.top + 1, c % 13] and c not in seen]
        assert playable
        assert all(not (model.domain[c] >> hand_slot) & 1 for c in playable)
        checked += 1
    assert checked >= 3


def test_the_compiled_finish_plays_as_the_heuristic() -> None:
    state = GAME.init(np.arange(48, dtype=np.uint64))
    rng = np.random.default_rng(0)
    for _ in range(40):  # into the play phase, some tables near their end
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        GAME.step(state, np.asarray(POLICY.act(GAME.observe(sub, sub.current_player), sub.legal_action_mask, rng)),
                  tables=live)
    compiled, stepped = state.copy(), state.copy()
    finished = POLICY.finish(compiled, np.flatnonzero(~compiled.done))
    assert finished.size and compiled.done.all()
    while not stepped.done.all():
        live = np.flatnonzero(~stepped.done)
        sub = stepped.take(live)
        GAME.step(stepped, np.asarray(POLICY.act(GAME.observe(sub, sub.current_player), sub.legal_action_mask, rng)),
                  tables=live)
    assert (compiled.rewards == stepped.rewards).all() and (compiled.winner == stepped.winner).all()
    assert (compiled.turns == stepped.turns).all()


def test_the_compiled_finish_plays_each_seat_its_model() -> None:
    """Random seats (-1) play legal moves to the end; a seat given the heuristic's priorities plays as the heuristic
    (the finish of every seat playing it is the default)."""
    state = GAME.init(np.arange(32, dtype=np.uint64))
    rng = np.random.default_rng(1)
    while (state.phase == 0).any():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        GAME.step(state, np.asarray(POLICY.act(GAME.observe(sub, sub.current_player), sub.legal_action_mask, rng)),
                  tables=live)
    styles = np.zeros((32, GAME.num_players), np.int64)
    default, given = state.copy(), state.copy()
    POLICY.finish(default, np.arange(32))
    POLICY.finish(given, np.arange(32), styles=(POLICY.priority,), seat_style=styles)
    assert (default.winner == given.winner).all() and (default.turns == given.turns).all()
    styles[:, 1:] = -1
    mixed = state.copy()
    POLICY.finish(mixed, np.arange(32), styles=(POLICY.priority,), seat_style=styles, seed=5)
    assert mixed.done.all() and (mixed.winner != default.winner).any()
    assert (mixed.winner[~mixed.truncated] >= 0).all()
