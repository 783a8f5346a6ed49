"""Agents: the protocol on every game, the registry, and the heuristics' legality and choices."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from agents.flipflop_heuristic import FlipFlopHeuristic
from agents.random_agent import RandomAgent
from agents.registry import AgentSpecError, make_agent
from agents.triolet_heuristic import TrioletHeuristic
from agents.tripoli_heuristic import TripoliHeuristic
from envs.core import poker
from envs.core.agent import Agent
from envs.core.cards import mask_of, parse_card
from envs.core.extras import EXTRAS
from envs.flipflop import actions as FT
from envs.flipflop import observation as FV
from envs.registry import make_game
from envs.triolet import actions as TR
from envs.triolet import observation as TO
from envs.tripoli.actions import TripoliActions
from envs.tripoli.observation import OBSERVATION_SIZE, OFFSETS, SCALARS
from training.evaluate import play_tables

GAMES = {"tripoli": TripoliHeuristic, "triolet": TrioletHeuristic, "flipflop": FlipFlopHeuristic}


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


@pytest.mark.parametrize("name", GAMES)
def test_protocol_on_every_game(name: str) -> None:
    game = make_game(name, num_players=4)
    state = game.init(3, batch_size=64)
    rng = np.random.default_rng(0)
    for spec in ("random", "heuristic"):
        agent = make_agent(spec, game)
        assert isinstance(agent, Agent)
        assert agent.name == spec
        live = ~state.done  # a Flip Flop deal can end at the deal (F7)
        seats = np.maximum(state.current_player, 0)
        actions = agent.act(game.observe(state, seats), state.legal_action_mask, rng)
        assert actions.shape == (64,) and np.issubdtype(actions.dtype, np.integer)
        assert live.sum() > 50 and state.legal_action_mask[np.arange(64), actions][live].all()
    assert isinstance(make_agent("heuristic", game), GAMES[name])


def test_registry_module_class_spec() -> None:
    game = make_game("tripoli", num_players=3)
    assert isinstance(make_agent("agents.random_agent:RandomAgent", game), RandomAgent)
    assert isinstance(make_agent("agents.triolet_heuristic:TrioletHeuristic", make_game("triolet", 3)),
                      TrioletHeuristic)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("clever", "unknown agent 'clever'; known agents: random, heuristic, tight, .* \\(the tripoli zoo\\), "
                   "search\\[:N\\|:Nms\\], ppo:"),
        ("", "non-empty"),
        ("nosuchmodule:Agent", "no module named 'nosuchmodule'"),
        ("agents.random_agent:Nope", "has no attribute 'Nope'"),
        ("ppo:/no/such/model.zip", "model file '/no/such/model.zip' not found"),
    ],
)
def test_registry_refuses_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, make_game("tripoli", num_players=4))


def test_registry_ppo_imported_lazily_with_game_and_path(tmp_path, monkeypatch) -> None:
    model = tmp_path / "m.zip"
    model.write_bytes(b"x")
    built = []
    fake = types.ModuleType("agents.ppo")
    fake.PPOAgent = lambda game, path: built.append((game, path)) or RandomAgent(game)
    monkeypatch.setitem(sys.modules, "agents.ppo", fake)
    game = make_game("flipflop", num_players=3)
    assert isinstance(make_agent(f"ppo:{model}", game), RandomAgent)
    assert built == [(game, str(model))]
    monkeypatch.delitem(sys.modules, "agents.ppo")
    for name in EXTRAS["train"]:  # as if the train extra were not installed
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(AgentSpecError, match=r'a model file needs the train extra: pip install -e "\.\[train\]"'):
        make_agent(f"ppo:{model}", game)


# ----- legality: heuristics never choose an illegal action (the core raises on one) -------------------------------
LEGALITY_CASES = [
    ("tripoli", n, {}) for n in (2, 3, 5, 9)
] + [
    ("tripoli", 4, {"paycards": "play", "max_raises": 0, "num_deals": 2}),
    ("tripoli", 6, {"pay_suit": "auction", "lead_colours": "alternate", "spare_hand": "swap_only"}),
    ("tripoli", 4, {"auto_forced": False, "first_lead": "lowest", "poker_select": "best", "bet_limit": 1}),
] + [("triolet", n, {}) for n in (3, 4, 5, 7)] + [
    ("triolet", 6, {"faceup_sets": True, "auto_forced": False}),
] + [("flipflop", n, {}) for n in (2, 4, 7)] + [
    ("flipflop", 3, {"num_deals": 4, "bankroll": 3}),
    ("flipflop", 5, {"until_one_left": True, "bankroll": 4, "auto_forced": False}),
]


@pytest.mark.parametrize("name, n, options", LEGALITY_CASES)
def test_heuristic_always_legal(name: str, n: int, options: dict) -> None:
    """Heuristic seats mixed with random seats at random (diverse states); 3 of 4 seats heuristic on average."""
    game = make_game(name, num_players=n, **options)
    tables = 96 if name == "triolet" else 64 if options.get("until_one_left") else 256
    agents = [make_agent("heuristic", game), make_agent("random", game)]
    rng = np.random.default_rng(n)
    seat_agent = (rng.random((tables, n)) < 0.25).astype(np.int64)
    returns, decisions = play_tables(game, agents, seat_agent, np.arange(tables) + 1000 * n, rng)
    assert returns.shape == (tables, n) and decisions > tables


# ----- Tripoli choices ------------------------------------------------------------------------------------------
def tripoli_obs(hand: str, phase: int, *, selected: str = "", n: int = 4, **scalars: float) -> np.ndarray:
    obs = np.zeros((1, OBSERVATION_SIZE), np.float32)
    for block, text in (("hand", hand), ("selected", selected)):
        obs[0, OFFSETS[block][0] + np.array(cards(text), dtype=int)] = 1.0
    obs[0, OFFSETS["seat_present"][0] : OFFSETS["seat_present"][0] + n] = 1.0
    obs[0, OFFSETS["phase"][0] + phase] = 1.0
    obs[0, OFFSETS["pay_suit"][0] + 2] = 1.0
    for key, value in scalars.items():
        if key == "pot":
            obs[0, OFFSETS["layout"][0] + 8] = value
        else:
            obs[0, OFFSETS["scalars"][0] + SCALARS.index(key)] = value
    return obs


def test_tripoli_heuristic_selects_its_best_five() -> None:
    game = make_game("tripoli", num_players=4)
    a = TripoliActions(20, 10)
    hand = "2c 7c 7d 7h Ks Kd 4s 9h Jc 3d"
    obs = tripoli_obs(hand, 4, selected="7c")
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, a.select + np.array([c for c in cards(hand) if c != parse_card("7c")])] = True
    best = int(poker.best_five(np.array([mask_of(cards(hand))]))[0])
    choice = TripoliHeuristic(game).act(obs, mask, np.random.default_rng(0))[0] - a.select
    assert best >> int(choice) & 1, "selects a card of its full house 7-7-7-K-K"


def test_tripoli_heuristic_bets_strong_and_folds_weak() -> None:
    game = make_game("tripoli", num_players=4)
    a = TripoliActions(20, 10)
    agent = TripoliHeuristic(game)
    unopened = np.zeros((1, game.num_actions), bool)
    unopened[0, [a.check, *range(a.bet, a.bet + 10)]] = True
    royal = tripoli_obs("Ah Kh Qh Jh 10h 2c 3d 5s 7c 9d", 5, selected="Ah Kh Qh Jh 10h", pot=4)
    assert a.bet <= agent.act(royal, unopened, None)[0] < a.bet + 10
    facing = np.zeros((1, game.num_actions), bool)
    facing[0, [a.call, a.fold, *range(a.raise_, a.raise_ + 10)]] = True
    trash = tripoli_obs("2c 3d 5s 7c 9d Jh 4h 6s 8c Qd", 5, selected="2c 3d 5s 7c 9d", pot=14, to_call=10)
    assert agent.act(trash, facing, None)[0] == a.fold
    assert a.raise_ <= agent.act(tripoli_obs("Ah Kh Qh Jh 10h 2c", 5, selected="Ah Kh Qh Jh 10h", pot=14,
                                             to_call=10), facing, None)[0] < a.raise_ + 10


def test_tripoli_heuristic_leads_its_long_run_with_a_stop() -> None:
    game = make_game("tripoli", num_players=4)
    a = TripoliActions(20, 10)
    obs = tripoli_obs("2c 3c 4c 5c 6c 9s", 6)
    obs[0, OFFSETS["played"][0] + parse_card("7c")] = 1.0  # 6♣ is a stop: the lead comes back
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, [a.lead, a.lead + 3]] = True
    assert TripoliHeuristic(game).act(obs, mask, None)[0] == a.lead  # lead ♣


# ----- Le triolet choices ---------------------------------------------------------------------------------------
def triolet_choice(legal: list[int]) -> int:
    game = make_game("triolet", num_players=4)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, legal] = True
    return int(TrioletHeuristic(game).act(np.zeros((1, game.observation_size), np.float32), mask, None)[0])


def play(rank: int, k: int) -> int:
    return TR.PLAY_HAND + 8 * rank + k - 1


def test_triolet_heuristic_plays_all_copies_of_the_lowest_rank_and_keeps_2_7_10() -> None:
    three, nine, king, two, seven, ten = 1, 7, 11, 0, 5, 8
    legal = [play(nine, 1), play(three, 1), play(three, 2), play(king, 1), play(two, 1), play(seven, 1),
             play(ten, 1)]
    assert triolet_choice(legal) == play(three, 2)
    assert triolet_choice([play(ten, 1), play(seven, 1), play(two, 1), play(two, 2)]) == play(two, 1)
    assert triolet_choice([play(ten, 1), play(seven, 1)]) == play(seven, 1)
    assert triolet_choice([play(ten, 1), TR.PICK_UP]) == play(ten, 1)


def test_triolet_heuristic_swaps_good_cards_face_up() -> None:
    """Hand 4♠ 10♥ K♦ (sorted by id: K♦ 10♥ 4♠), face-up 3♣ K♣ 2♦: the best gain is 10♥ (#2) for 3♣ (slot #1)."""
    game = make_game("triolet", num_players=4)
    obs = np.zeros((1, game.observation_size), np.float32)
    for c in cards("4s Th Kd"):
        obs[0, TO.OWN_HAND + c] = 1
    for j, c in enumerate(cards("3c Kc 2d")):
        obs[0, TO.OWN_FACEUP_SLOTS + 52 * j + c] = 1
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, TR.READY] = True
    mask[0, TR.SWAP :] = True
    agent = make_agent("heuristic", game)
    assert agent.act(obs, mask, np.random.default_rng(0))[0] == TR.SWAP + 3 * 1 + 0
    mask[0, TR.SWAP :] = False
    mask[0, TR.SWAP + 3 * 2 + 2] = True  # only 4♠ for 2♦: a loss, so ready
    assert agent.act(obs, mask, np.random.default_rng(0))[0] == TR.READY


# ----- Flip Flop choices ----------------------------------------------------------------------------------------
def flipflop_obs(hand: str, top: str = "") -> np.ndarray:
    game = make_game("flipflop", num_players=3)
    obs = np.zeros((1, game.observation_size), np.float32)
    obs[0, np.array(cards(hand))] = 1.0
    for field, value in (("present", 1), ("in_deal", 1), ("hand_size", 5)):
        lo = FV.SEATS_OFFSET + FV.SEAT_FIELDS.index(field) * FV.MAX_SEATS
        obs[0, lo : lo + 3] = value
    if top:
        obs[0, 4 * 52 + parse_card(top)] = 1.0
        obs[0, 3 * 52 + parse_card(top)] = 1.0
    return obs


def test_flipflop_heuristic_discards_the_high_loose_card() -> None:
    game = make_game("flipflop", num_players=3)
    hand = "Ks 5h 5d 3c 4c"
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, FT.DISCARD + np.array(cards(hand))] = True
    choice = FlipFlopHeuristic(game).act(flipflop_obs(hand), mask, None)[0]
    assert choice == FT.DISCARD + parse_card("Ks")


def test_flipflop_heuristic_lays_spreads_before_discarding() -> None:
    game = make_game("flipflop", num_players=3)
    mask = np.zeros((1, game.num_actions), bool)
    run = game.action_id("lay run 3♥4♥5♥")
    mask[0, [run, FT.DISCARD + parse_card("Kc")]] = True
    assert FlipFlopHeuristic(game).act(flipflop_obs("3h 4h 5h Kc"), mask, None)[0] == run


def test_flipflop_heuristic_takes_a_discard_that_makes_a_set() -> None:
    game = make_game("flipflop", num_players=3)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, [FT.DROP, FT.DRAW_STOCK, FT.DRAW_DISCARD + parse_card("9s")]] = True
    agent = FlipFlopHeuristic(game)
    assert agent.act(flipflop_obs("9h 9d Kc Qc Jd", top="9s"), mask, None)[0] == FT.DRAW_DISCARD + parse_card("9s")
    mask[0, FT.DRAW_DISCARD + parse_card("9s")] = False
    mask[0, FT.DRAW_DISCARD + parse_card("8s")] = True
    assert agent.act(flipflop_obs("9h 9d Kc Qc Jd", top="8s"), mask, None)[0] == FT.DRAW_STOCK


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_the_trained_agent_loads_where_one_ships_and_says_so_where_none_does(name):
    from agents.model_file import read_metadata
    from agents.registry import trained_model
    from envs.registry import env_version

    game = make_game(name, num_players=4)
    path = trained_model(name)
    if not path.is_file():
        with pytest.raises(AgentSpecError, match=f"no trained agent ships for {name} yet"):
            make_agent("trained", game)
        return
    assert read_metadata(path)["env_version"] == env_version(name)  # it names the env version it plays
    agent = make_agent("trained", game)
    assert agent.name == "trained"
    state = game.init(np.arange(16, dtype=np.uint64))
    mask = state.legal_action_mask
    chosen = agent.act(game.observe(state, state.current_player), mask, np.random.default_rng(0))
    assert mask[np.arange(16), chosen].all()


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_each_shipped_model_file_is_the_one_its_version_names(name):
    """A new model file for ``trained`` is a new behaviour version: the file's SHA-256 must be the one recorded beside
    the version, so a model replaced without its version raised fails here."""
    import hashlib

    from agents.registry import TRAINED_VERSIONS, trained_model

    version, digest = TRAINED_VERSIONS[name]
    assert hashlib.sha256(trained_model(name).read_bytes()).hexdigest() == digest
    assert make_agent("trained", make_game(name, num_players=4)).version == version


@pytest.mark.parametrize("seed", [0, 1])
def test_the_trained_agent_decides_the_same_in_deals_that_differ_only_in_cards_it_has_not_seen(seed):
    """Two Tripoli deals that differ only in two cards of other players' hands, unseen by seat 0 up to a decision,
    give the trained agent (its network and its advisor) the same input and the same decision there."""
    from agents.registry import trained_model
    from tests.search_helpers import replay, same_view, seat_decisions

    if not trained_model("tripoli").is_file():
        pytest.fail("agents/models/tripoli.zip ships with cardgym")
    game = make_game("tripoli", num_players=4)
    trained = make_agent("trained", game)
    deck, dealer, compared = np.random.default_rng(seed).permutation(52), seed % 4, 0
    for point in seat_decisions(game, trained, deck, dealer, 0, limit=60):
        real = point.state
        seen = int(real.hands[0, 0]) | int(real.played[0]) | int(real.known[0, 0])
        for p in range(4):
            seen |= int(real.shown[0, p])
        first = np.flatnonzero(point.view.first[:52])
        unseen = [c for c in range(52) if not (seen >> c) & 1 and c not in first]
        rng = np.random.default_rng(seed)
        for _ in range(200):
            c1, c2 = rng.choice(unseen, 2, replace=False)
            pos = {int(c): i for i, c in enumerate(deck)}
            if pos[c1] % 5 == pos[c2] % 5:
                continue
            other = deck.copy()
            other[pos[c1]], other[pos[c2]] = c2, c1
            twin = replay(game, other, dealer, point.actions)
            if twin is not None and same_view(point.view, twin.seat_view("player_0")):
                break
        else:
            continue
        assert not np.array_equal(twin.state_.hands, real.hands) or twin.state_.spare[0] != real.spare[0]
        obs2 = twin.observe("player_0")["observation"][None]
        mask2 = twin.state_.legal_action_mask[:1]
        rng1, rng2 = np.random.default_rng(3), np.random.default_rng(3)
        assert trained.act(point.obs, point.mask, rng1).tolist() == trained.act(obs2, mask2, rng2).tolist()
        np.testing.assert_array_equal(trained.logits(point.obs, point.mask), trained.logits(obs2, mask2))
        compared += 1
    assert compared >= 3, compared


@pytest.mark.parametrize("name", ["triolet", "flipflop"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_shedding_and_rummy_agents_decide_the_same_in_deals_that_differ_only_in_unseen_cards(name, seed):
    """Two Le triolet (Flip Flop) deals that differ in two cards of the deck whose swap seat 0 cannot see up to a
    decision (its seat view, every observation and public action, is the same) give the trained agent the same input
    and the same decision there."""
    from agents.registry import trained_model
    from tests.search_helpers import replay, same_view, seat_decisions

    if not trained_model(name).is_file():
        pytest.fail(f"agents/models/{name}.zip ships with cardgym")
    game = make_game(name, num_players=4)
    trained = make_agent("trained", game)
    cards = game.deck_ids() if name == "triolet" else np.arange(52)
    rng, compared = np.random.default_rng(seed), 0
    for deal in range(4):  # a Flip Flop deal can give seat 0 only a few decisions: more deals until three compare
        deck, dealer = rng.permutation(cards), (seed + deal) % 4
        for point in seat_decisions(game, trained, deck, dealer, 0, limit=80):
            for _ in range(200):
                i, j = rng.choice(deck.size, 2, replace=False)
                other = deck.copy()
                other[i], other[j] = deck[j], deck[i]
                twin = replay(game, other, dealer, point.actions)
                if twin is not None and same_view(point.view, twin.seat_view("player_0")):
                    break  # a deal with two cards in other places, the same for seat 0
            else:
                continue
            obs2 = twin.observe("player_0")["observation"][None]
            mask2 = twin.state_.legal_action_mask[:1]
            np.testing.assert_array_equal(trained.logits(point.obs, point.mask), trained.logits(obs2, mask2))
            assert trained.act(point.obs, point.mask, np.random.default_rng(3)).tolist() == \
                trained.act(obs2, mask2, np.random.default_rng(3)).tolist()
            compared += 1
        if compared >= 3:
            break
    assert compared >= 3, compared
