"""The bot zoo: every bot of every game plays legally, deterministically, from its observation and mask alone; the
styles differ from the heuristic and from each other, beat random, make the choices their docstrings describe; the
registry, versions and ``cardgym agents``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import make_agent
from agents.zoo import BOTS, bot_class, list_bots
from envs.core.agent import Agent, agent_label
from envs.core.cards import parse_card
from envs.flipflop import actions as FT
from envs.flipflop import observation as FV
from envs.registry import make_game
from envs.triolet import actions as TR
from envs.triolet import observation as TO
from envs.tripoli.actions import PASS, TripoliActions
from envs.tripoli.observation import OBSERVATION_SIZE, OFFSETS, SCALARS
from training.cli import main
from training.evaluate import evaluate, play_tables

GAMES = tuple(BOTS)
SIZES = {"tripoli": (2, 9), "triolet": (3, 8), "flipflop": (2, 7)}
OPTIONS = {
    "tripoli": [{}, {"paycards": "play", "num_deals": 2}, {"pay_suit": "auction", "lead_colours": "alternate"},
                {"auto_forced": False, "spare_hand": "swap_only", "bet_limit": 1, "max_raises": 0},
                {"first_lead": "lowest", "poker_select": "best", "michigan_leader": "dealer"}],
    "triolet": [{}, {"faceup_sets": True, "auto_forced": False}],
    "flipflop": [{}, {"num_deals": 3, "bankroll": 3}, {"until_one_left": True, "bankroll": 3, "auto_forced": False}],
}
"""Rule variants the bots must play legally (each reaches decisions the default rules do not)."""


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


class Checked:
    """Wraps an agent: asserts every action it returns is legal and counts its decisions."""

    uses_observation = True

    def __init__(self, agent: Agent) -> None:
        self.agent, self.name, self.decisions = agent, agent.name, 0

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = self.agent.act(obs, mask, rng)
        assert mask[np.arange(len(mask)), actions].all(), f"{self.name} chose an illegal action"
        self.decisions += len(mask)
        return actions


class Recorder(Checked):
    """Also keeps copies of the observations and masks of its non-forced decisions."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent)
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        keep = mask.sum(axis=1) > 1
        self.obs.append(obs[keep].copy())
        self.masks.append(mask[keep].copy())
        return super().act(obs, mask, rng)


_DECISIONS: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def decisions(game_name: str) -> tuple[np.ndarray, np.ndarray]:
    """A fixed set of non-forced decisions (observations, masks) of 4-player games: heuristic and random seats."""
    if game_name not in _DECISIONS:
        game = make_game(game_name, num_players=4)
        recorders = [Recorder(make_agent("heuristic", game)), Recorder(make_agent("random", game))]
        rng = np.random.default_rng(0)
        seat_agent = (rng.random((128, 4)) < 0.5).astype(np.int64)
        play_tables(game, recorders, seat_agent, np.arange(128), rng)
        _DECISIONS[game_name] = (np.concatenate([o for r in recorders for o in r.obs]),
                                 np.concatenate([m for r in recorders for m in r.masks]))
    return _DECISIONS[game_name]


# ----- legality over whole games ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=6)
@given(data=st.data())
def test_every_bot_plays_whole_games_legally(game_name: str, data: st.DataObject) -> None:
    """All the game's bots at one table mix (seats assigned round-robin so each bot plays), any size and rules."""
    lo, hi = SIZES[game_name]
    n = data.draw(st.integers(lo, hi), label="players")
    options = data.draw(st.sampled_from(OPTIONS[game_name]), label="options")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    game = make_game(game_name, num_players=n, **options)
    bots = [Checked(make_agent(name, game)) for name in BOTS[game_name]]
    tables = 24
    seat_agent = (np.arange(tables * n).reshape(tables, n) + seed) % len(bots)
    returns, total = play_tables(game, bots, seat_agent, seed + np.arange(tables), np.random.default_rng(seed))
    assert returns.shape == (tables, n) and np.isfinite(returns).all()
    assert total == sum(b.decisions for b in bots) and all(b.decisions > 0 for b in bots)


# ----- determinism and inputs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name, name", [(g, b) for g in GAMES for b in BOTS[g] if b != "random"])
def test_bot_is_a_pure_function_of_obs_and_mask(game_name: str, name: str) -> None:
    """Same rng seed, same actions; the inputs are not written to; each row's action depends on that row only
    (any order, any subset of the batch, a 0/1 int8 mask as the AEC gives it)."""
    obs, mask = decisions(game_name)
    obs, mask = obs[:1500], mask[:1500]
    agent = make_agent(name, make_game(game_name, num_players=4))
    obs_in, mask_in = obs.copy(), mask.copy()
    first = agent.act(obs_in, mask_in, np.random.default_rng(7))
    assert np.array_equal(obs_in, obs) and np.array_equal(mask_in, mask), "the agent wrote to its inputs"
    assert first.shape == (len(obs),) and mask[np.arange(len(obs)), first].all()
    assert np.array_equal(agent.act(obs.copy(), mask.copy(), np.random.default_rng(7)), first)
    perm = np.random.default_rng(1).permutation(len(obs))
    assert np.array_equal(agent.act(obs[perm], mask[perm], np.random.default_rng(7)), first[perm])
    assert np.array_equal(agent.act(obs[:37], mask[:37].astype(np.int8), np.random.default_rng(7)), first[:37])


# ----- styles differ ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_styles_differ_from_each_other_on_fixed_decisions(game_name: str) -> None:
    """On the same non-forced decisions every two named bots (the heuristic included) choose differently at least
    2% of the time (measured: 3–58%)."""
    obs, mask = decisions(game_name)
    game = make_game(game_name, num_players=4)
    names = [b for b in BOTS[game_name] if b != "random"]
    actions = {b: make_agent(b, game).act(obs, mask, np.random.default_rng(0)) for b in names}
    assert len(obs) > 500
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert (actions[a] != actions[b]).mean() >= 0.02, f"{a} and {b} play alike"


@pytest.mark.parametrize("game_name, name", [(g, b) for g in GAMES for b in BOTS[g] if b != "random"])
def test_bot_beats_random_in_a_duplicate_evaluation(game_name: str, name: str) -> None:
    """Against three random seats, 1,200 duplicate deals: the bot's mean result per deal exceeds the randoms' mean
    by more than four standard errors over the deal groups (a chance of about 3e-5 for an equal player)."""
    game = make_game(game_name, num_players=4)
    agents = [make_agent(name, game)] + [make_agent("random", game) for _ in range(3)]
    result = evaluate(game, agents, deals=1200, seed=11)
    diff = result.group_returns[:, 0] - result.group_returns[:, 1:].mean(axis=1)
    z = diff.mean() / (diff.std(ddof=1) / math.sqrt(len(diff)))
    assert z > 4, f"{name}: {diff.mean():+.3f} per deal over random, z = {z:.1f}"
    label = f"{name}@v{agents[0].version}"
    assert result.labels[0] == label and result.to_dict()["agents"][0]["label"] == label


# ----- registry, versions, listing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game_name", GAMES)
def test_every_name_builds_its_class_with_name_version_and_docstring(game_name: str) -> None:
    game = make_game(game_name, num_players=4)
    assert {"random", "heuristic"} <= set(BOTS[game_name]) and len(BOTS[game_name]) >= 5
    infos = {info.name: info for info in list_bots(game_name)}
    for name in BOTS[game_name]:
        agent = make_agent(name, game)
        cls = bot_class(game_name, name)
        assert isinstance(agent, Agent) and type(agent) is cls
        assert agent.name == name and isinstance(agent.version, int) and agent.version >= 1
        assert agent_label(agent) == f"{name}@v{agent.version}"
        assert "name" in vars(cls), f"{cls.__name__} inherits its name"
        assert infos[name].summary == cls.__doc__.strip().splitlines()[0] and len(infos[name].summary) > 20
        assert infos[name].version == agent.version


def test_agent_label_defaults_to_version_one() -> None:
    class Bare:
        name = "bare"

    assert agent_label(Bare()) == "bare@v1"


@pytest.mark.parametrize("game_name", GAMES)
def test_cli_agents_lists_every_name(game_name: str, capsys) -> None:
    main(["agents", "--game", game_name])
    lines = capsys.readouterr().out.splitlines()
    listed = {line.split()[0]: line.split()[1] for line in lines[1:]}
    for info in list_bots(game_name):
        assert listed[info.name] == f"v{info.version}"
        assert any(line.split()[0] == info.name and info.summary in line for line in lines)
    assert "ppo:PATH" in listed and "module:Class" in listed
    other = next(g for g in GAMES if g != game_name)
    assert not (set(BOTS[other]) - set(BOTS[game_name])) & set(listed), "another game's bots are listed"


# ----- Tripoli styles: scripted choices -----------------------------------------------------------------------------
A = TripoliActions(20, 10)
WHEEL = "Ac Ad 7h 7s 2c 3d 4h 9s Jc 5d"
"""Best five the straight A-2-3-4-5: it beats one random 10-card hand 44% of the time."""


def tripoli_obs(hand: str, phase: int, *, n: int = 2, played: str = "", **scalars: float) -> np.ndarray:
    obs = np.zeros((1, OBSERVATION_SIZE), np.float32)
    obs[0, OFFSETS["hand"][0] + np.array(cards(hand))] = 1.0
    if played:
        obs[0, OFFSETS["played"][0] + np.array(cards(played))] = 1.0
    obs[0, OFFSETS["seat_present"][0] : OFFSETS["seat_present"][0] + n] = 1.0
    obs[0, OFFSETS["phase"][0] + phase] = 1.0
    obs[0, OFFSETS["pay_suit"][0] + 2] = 1.0
    for key, value in scalars.items():
        if key == "pot":
            obs[0, OFFSETS["layout"][0] + 8] = value
        else:
            obs[0, OFFSETS["scalars"][0] + SCALARS.index(key)] = value
    return obs


def tripoli_choices(obs: np.ndarray, legal: list[int]) -> dict[str, int]:
    game = make_game("tripoli", num_players=2)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, legal] = True
    return {b: int(make_agent(b, game).act(obs, mask, None)[0]) for b in BOTS["tripoli"] if b != "random"}


def test_tripoli_tight_folds_the_straight_the_heuristic_calls() -> None:
    """Heads-up, equity 0.44 against pot odds 2 / 12 = 0.17: the heuristic calls (margin 0.15), tight folds (0.3)."""
    got = tripoli_choices(tripoli_obs(WHEEL, 5, pot=10, to_call=2),
                          [A.call, A.fold, *range(A.raise_, A.raise_ + 10)])
    assert got["heuristic"] == got["longsuit"] == A.call and got["tight"] == A.fold


def test_tripoli_aggressive_bets_the_straight_the_heuristic_checks() -> None:
    """Unopened, equity 0.44: below the heuristic's 0.5, above the aggressive 0.3 (size ceil(10·0.19·4) = 8)."""
    got = tripoli_choices(tripoli_obs(WHEEL, 5, pot=4), [A.check, *range(A.bet, A.bet + 10)])
    assert got["heuristic"] == got["tight"] == A.check and got["aggressive"] == A.bet + 8 - 1


def test_tripoli_spare_auction_bids() -> None:
    """A hopeless hand (win chance about 0) at the spare auction: the heuristic goes to floor(5 · 0.42) = 2 chips,
    the aggressive to floor(10 · 0.4998) = 4, tight never bids."""
    hopeless = "Ac Kd 2c 3d 4h 9s Jc 6d 7h 8s"
    bids = list(range(A.bid, A.name_suit))
    for high, expect in ((0, {"heuristic": A.bid, "aggressive": A.bid, "tight": PASS}),
                         (2, {"heuristic": PASS, "aggressive": A.bid + 2, "tight": PASS})):
        got = tripoli_choices(tripoli_obs(hopeless, 1, high_bid=high), [PASS, *bids[high:]])
        assert {b: got[b] for b in expect} == expect


def test_tripoli_michigan_leads() -> None:
    """Lead ♣ (2♣3♣: two cards, the lowest) or ♠ (9♠–Q♠: four cards): heuristic and lowlead lead ♣, longsuit ♠.
    Lead ♣ (2♣ alone, six clubs) or ♠ (3♠4♠5♠): the heuristic leads its longer block ♠, lowlead its 2♣, longsuit
    its six clubs."""
    got = tripoli_choices(tripoli_obs("2c 3c 9s 10s Js Qs", 6), [A.lead, A.lead + 3])
    assert (got["heuristic"], got["lowlead"], got["longsuit"]) == (A.lead, A.lead, A.lead + 3)
    got = tripoli_choices(tripoli_obs("2c 9c 10c Jc Qc Kc 3s 4s 5s", 6), [A.lead, A.lead + 3])
    assert (got["heuristic"], got["lowlead"], got["longsuit"]) == (A.lead + 3, A.lead, A.lead)


# ----- Le triolet styles --------------------------------------------------------------------------------------------
THREE, NINE, KING, SEVEN, TEN = 1, 7, 11, 5, 8


def play(rank: int, k: int = 1) -> int:
    return TR.PLAY_HAND + 8 * rank + k - 1


def swap(hand_place: int, slot: int) -> int:
    """The swap of hand card #``hand_place`` (1–3, the hand sorted by card id) with face-up slot #``slot`` (1–3)."""
    return TR.SWAP + 3 * (hand_place - 1) + slot - 1


def triolet_choices(legal: list[int], obs: np.ndarray | None = None) -> dict[str, int]:
    game = make_game("triolet", num_players=4)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, legal] = True
    if obs is None:  # the next player still holds 9 cards: nobody is close to going out
        obs = np.zeros((1, game.observation_size), np.float32)
        obs[0, TO.SEATS + 3 * TO.SEAT_SIZE + TO.HAND_COUNT] = 9
    return {b: int(make_agent(b, game).act(obs, mask, None)[0]) for b in BOTS["triolet"] if b != "random"}


def test_triolet_specials_and_pairs_plays() -> None:
    got = triolet_choices([play(THREE), play(NINE), play(NINE, 2), play(TEN)])
    assert got["heuristic"] == got["saver"] == got["blocker"] == play(THREE)
    assert got["specials"] == play(TEN) and got["pairs"] == play(NINE, 2)
    got = triolet_choices([play(SEVEN), play(0), play(TEN)])  # only specials: 2 first, except the specials bot
    assert got["heuristic"] == play(0) and got["specials"] == play(TEN)


def test_triolet_swaps() -> None:
    """Hand 9♥ 4♠ K♠ (#1–#3 in card id order), face up 9♣ 5♦ 10♦ (slots #1–#3). The heuristic puts its K face up
    for the 5 (gain 6 in the L2 value); pairs takes the 9♣ next to its 9♥ for the K (a pair, +20, and a gain of 3);
    the saver brings the 10 into its hand for the K."""
    obs = np.zeros((1, TO.SIZE), np.float32)
    obs[0, cards("9h 4s Ks")] = 1.0
    for j, c in enumerate(cards("9c 5d 10d")):
        obs[0, TO.SEATS + TO.FACEUP + c] = 1.0
        obs[0, TO.OWN_FACEUP_SLOTS + 52 * j + c] = 1.0
    obs[0, TO.SWAP_PHASE] = 1.0
    legal = [TR.READY] + [swap(i, j) for i in (1, 2, 3) for j in (1, 2, 3)]
    got = triolet_choices(legal, obs)
    assert got["heuristic"] == swap(3, 2) and got["pairs"] == swap(3, 1)
    assert got["saver"] == swap(3, 3)
    legal = [TR.READY, swap(2, 3)]  # 4♠ for 10♦
    assert triolet_choices(legal, obs)["heuristic"] == TR.READY and triolet_choices(legal, obs)["saver"] != TR.READY


@pytest.mark.parametrize("next_cards, expect", [(2, play(KING)), (4, play(THREE))])
def test_triolet_blocker_plays_high_against_a_player_close_to_going_out(next_cards: int, expect: int) -> None:
    """The player to act next (seat block 3 of 4, play goes right) has 2 or 4 cards left."""
    obs = np.zeros((1, TO.SIZE), np.float32)
    nxt = TO.SEATS + 3 * TO.SEAT_SIZE
    obs[0, nxt + TO.HAND_COUNT] = next_cards - 1
    obs[0, nxt + TO.FACEDOWN] = 1.0
    got = triolet_choices([play(THREE), play(KING), play(SEVEN)], obs)
    assert got["blocker"] == expect and got["heuristic"] == play(THREE)


# ----- Flip Flop styles ---------------------------------------------------------------------------------------------
def flipflop_obs(hand: str, opponent_cards: int = 5, top: str = "") -> np.ndarray:
    game = make_game("flipflop", num_players=3)
    obs = np.zeros((1, game.observation_size), np.float32)
    obs[0, np.array(cards(hand))] = 1.0
    for field, value in (("present", 1), ("in_deal", 1), ("hand_size", opponent_cards)):
        lo = FV.SEATS_OFFSET + FV.SEAT_FIELDS.index(field) * FV.MAX_SEATS
        obs[0, lo : lo + 3] = value
    if top:
        obs[0, FV.PILE_TOP * 52 + parse_card(top)] = 1.0
        obs[0, FV.PILE * 52 + parse_card(top)] = 1.0
    return obs


def flipflop_choices(obs: np.ndarray, legal: list[int]) -> dict[str, int]:
    game = make_game("flipflop", num_players=3)
    mask = np.zeros((1, game.num_actions), bool)
    mask[0, legal] = True
    return {b: int(make_agent(b, game).act(obs, mask, None)[0]) for b in BOTS["flipflop"] if b != "random"}


def test_flipflop_dumper_discards_its_highest_card_even_a_pair() -> None:
    """9♥ 9♦ are a pair, 3♣ 4♣ a run in the making, 8♣ loose: the heuristic throws the 8♣, the dumper a 9."""
    hand = "9h 9d 8c 3c 4c"
    got = flipflop_choices(flipflop_obs(hand), [FT.DISCARD + c for c in cards(hand)])
    assert got["heuristic"] == FT.DISCARD + parse_card("8c")
    assert got["dumper"] in (FT.DISCARD + parse_card("9h"), FT.DISCARD + parse_card("9d"))


def test_flipflop_builder_takes_a_discard_that_starts_a_set() -> None:
    """7♦ on the pile pairs its 7♣ and it holds the K♥ (10 points) to throw: only the builder takes it."""
    legal = [FT.DROP, FT.DRAW_STOCK, FT.DRAW_DISCARD + parse_card("7d")]
    got = flipflop_choices(flipflop_obs("7c Kh Qs 2d 9h", top="7d"), legal)
    assert got["builder"] == FT.DRAW_DISCARD + parse_card("7d")
    assert got["heuristic"] == got["dumper"] == got["early"] == FT.DRAW_STOCK


@pytest.mark.parametrize(
    "hand, dropping",
    [("Ac 2d 2h", {"early"}),  # 5 points; each opponent holds one unseen card (about 7 points)
     ("Ac 2d", {"early", "heuristic", "dumper", "builder"}),  # 3 points: only the patient plays on
     ("Ac", {"early", "heuristic", "dumper", "builder", "patient"})],
)
def test_flipflop_drops(hand: str, dropping: set[str]) -> None:
    got = flipflop_choices(flipflop_obs(hand, opponent_cards=1), [FT.DROP, FT.DRAW_STOCK])
    assert {b for b, a in got.items() if a == FT.DROP} == dropping
