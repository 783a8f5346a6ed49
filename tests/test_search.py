"""The search player and what it stands on: seat views, the Tripoli sampler, the compiled rollout bots.

The tests that matter most (docs/agents.md, "Agents that search"):

1. two real deals that are the same from the seat's point of view, differing only in cards it has not seen, give the
   same decision with the same random stream;
2. every sampled deal gives the seat the observation it has in the real deal, and the same public history (the game
   log's public events, step by step); the real deal itself always fits the sampler's constraint model;
3. the sampler takes a seat view, never a state, and a seat view holds nothing of the state;
4. the search plays legal actions in evaluations, leagues, the vector env and the terminal faces;
5. bad budgets are refused with one line.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools

import numpy as np
import pytest

from agents.registry import AgentSpecError, make_agent
from agents.search import SearchAgent, parse_budget
from agents.tripoli_rollout import STYLES, TripoliCompiled
from envs.aec import CardGymEnv
from envs.core.game import BatchState
from envs.gamelog import public_view
from envs.registry import make_game
from envs.tripoli.sampler import TripoliSampler
from tests.search_helpers import random_shares, replay, same_view, seat_decisions
from training.cli import main as cli_main
from training.evaluate import evaluate

GAME = make_game("tripoli", 4)
POLICY = TripoliCompiled(GAME, "longsuit")


def seat0_decisions(deck: np.ndarray, dealer: int, game=GAME, limit: int = 60):
    """Play a stacked deal with the compiled longsuit at every seat (at most ``limit`` actions); yield each decision
    of seat 0 with a choice."""
    return seat_decisions(game, POLICY, deck, dealer, 0, limit)


def deck_for(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(52)


# ----- 1. same view, same decision -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deals_equal_from_the_seat_give_the_same_decision(seed: int) -> None:
    deck, dealer = deck_for(seed), seed % 4
    checked = 0
    points = list(seat0_decisions(deck, dealer))
    for point in points:
        if checked >= 3:
            break
        view, obs, mask, actions, real = point.view, point.obs, point.mask, point.actions, point.state
        seen = int(real.hands[0, 0]) | int(real.played[0]) | int(real.known[0, 0])
        for p in range(4):
            seen |= int(real.shown[0, p])
        first = np.flatnonzero(view.first[:52])  # the first hand (the observation's first block)
        unseen = [c for c in range(52) if not (seen >> c) & 1 and c not in first]
        rng = np.random.default_rng(seed)
        twin = None
        for _ in range(200):
            c1, c2 = rng.choice(unseen, 2, replace=False)
            pos = {int(c): i for i, c in enumerate(deck)}
            if pos[c1] % 5 == pos[c2] % 5:  # same hand: nothing changes
                continue
            other = deck.copy()
            other[pos[c1]], other[pos[c2]] = c2, c1
            env2 = replay(GAME, other, dealer, actions)
            if env2 is not None and same_view(view, env2.seat_view("player_0")):
                twin = env2
                break
        if twin is None:
            continue
        assert not np.array_equal(twin.state_.hands, real.hands) or twin.state_.spare[0] != real.spare[0]
        every_kind = tuple(GAME.action_kinds())  # the poker selection too: more decisions to compare
        a1, a2 = SearchAgent(GAME, playouts=60, kinds=every_kind), SearchAgent(GAME, playouts=60, kinds=every_kind)
        d1 = a1.act(obs, mask, np.random.default_rng(7), views=[view])
        d2 = a2.act(obs, mask, np.random.default_rng(7), views=[twin.seat_view("player_0")])
        assert d1.tolist() == d2.tolist()
        untimed = [{k: v for k, v in a.stats.items() if k not in ("seconds", "cpu_seconds")} for a in (a1, a2)]
        assert untimed[0] == untimed[1]
        checked += a1.stats["searched"]  # a bet may be left to the rollout bot (agents/search.py: GATED)
    assert checked >= 2


# ----- 2. sampled deals match the seat's view and the public history -------------------------------------------------
def public_steps(lines: list[dict], steps: int) -> list[tuple]:
    view = public_view("tripoli")
    lines = [line for line in lines if line["type"] == "step"][:steps]
    return [(line["seat"], view.public_action_name(line["name"]), line["events"], line["rewards"]) for line in lines]


@pytest.mark.parametrize("seed", [3, 4])
def test_every_sampled_deal_shows_the_seat_what_it_saw(seed: int) -> None:
    deck, dealer = deck_for(seed), (seed + 1) % 4
    sampler = TripoliSampler(GAME, POLICY)
    differs = 0
    for point in list(seat0_decisions(deck, dealer))[::2]:
        view, obs, mask = point.view, point.obs, point.mask
        samples = sampler.sample([view], np.array([12]), np.array([seed]))
        assert samples.state is not None and samples.kept[0] > 0
        got = GAME.observe(samples.state, np.zeros(samples.state.batch_size, np.int64))
        assert (got == obs).all()
        assert (samples.state.legal_action_mask == mask).all()
        assert (samples.state.hands[:, 0] == point.state.hands[0, 0]).all()
        differs += int((samples.state.hands[:, 1:] != point.state.hands[0, 1:]).any())
        real = public_steps(point.lines, len(point.actions))
        for deck_s, dealer_s, acts in zip(samples.decks[:4], samples.dealers[:4], samples.actions[:4], strict=False):
            again = replay(GAME, deck_s, int(dealer_s), acts)
            assert again is not None and same_view(view, again.seat_view("player_0"))
            assert public_steps(again.recorder.lines, len(acts)) == real
    assert differs > 0


@pytest.mark.parametrize(("n", "options"), [(4, {}), (3, {"dead_hand": "shown"}), (5, {"paycards": "play"}),
                                             (4, {"spare_hand": "none"}), (4, {"auto_forced": False})])
def test_the_real_deal_always_fits_the_constraint_model(n: int, options: dict) -> None:
    game = make_game("tripoli", n, **options)
    policy = TripoliCompiled(game, "longsuit")
    sampler = TripoliSampler(game, policy)
    global POLICY
    saved, POLICY = POLICY, policy
    try:
        for seed in range(6):
            deck, dealer = deck_for(100 + seed), seed % n
            slot_of = np.empty(52, np.int64)
            slot_of[deck] = np.arange(52) % (n + 1)
            for point in seat0_decisions(deck, dealer, game=game, limit=80):
                view = point.view
                model = sampler.model(view)
                assert model.error is None
                known = model.fixed >= 0
                assert (model.fixed[known] == slot_of[known]).all()
                assert ((model.domain >> slot_of) & 1).all()
                if model.enum_cards.size:
                    assert (model.enum_slots == slot_of[model.enum_cards]).all(axis=1).any()
                _, ok, *_ = sampler._replay([view], deck[None], np.array([dealer]), np.zeros(1, np.int64),
                                           [np.random.default_rng(0)])
                assert ok[0]
    finally:
        POLICY = saved


def test_sampler_acceptance_is_high_on_default_rules() -> None:
    sampler = TripoliSampler(GAME, POLICY)
    drawn = passed = 0
    for seed in range(4):
        for point in seat0_decisions(deck_for(200 + seed), seed):
            s = sampler.sample([point.view], np.array([20]), np.array([seed]))
            drawn, passed = drawn + int(s.drawn.sum()), passed + int(s.passed.sum())
    assert passed / drawn > 0.5


# ----- 3. views, never states ----------------------------------------------------------------------------------------
def test_the_sampler_takes_views_and_a_view_holds_no_state() -> None:
    sample_args = ["self", "views", "counts", "seeds", "likelihood"]  # views and numbers: no state
    assert list(inspect.signature(TripoliSampler.sample).parameters) == sample_args
    assert list(inspect.signature(SearchAgent.act).parameters) == ["self", "obs", "mask", "rng", "views"]
    env = CardGymEnv(GAME, seat_views=True)
    env.reset(seed=5)
    while int(env.state_.current_player[0]) != 0 or env.state_.legal_action_mask[0].sum() < 2:
        env.step(int(np.flatnonzero(env.state_.legal_action_mask[0])[0]))
    view = env.seat_view("player_0")
    state_arrays = [getattr(env.state_, f.name) for f in dataclasses.fields(env.state_)]
    for name, value in vars(view).items():
        assert not isinstance(value, BatchState), name
        for part in (value if isinstance(value, list) else [value]):
            if isinstance(part, tuple):  # a changes entry (indices, values) or a step's forced moves
                part = part[0] if part else None
            if isinstance(part, np.ndarray):
                assert not any(np.shares_memory(part, a) for a in state_arrays), name
    # the view's observations are exactly what the seat was shown
    assert np.array_equal(view.last, env.observe("player_0")["observation"])


def test_seat_views_hide_the_other_seats_secret_choices() -> None:
    view = next(itertools.islice(seat0_decisions(deck_for(6), 2), 5, None)).view
    names = GAME.action_names()
    for actor, action in zip(view.actors, view.actions, strict=True):
        if actor != 0 and action >= 0:
            assert not names[action].startswith("select ")
        if actor == 0:
            assert action >= 0
    assert -1 in view.actions


# ----- 4. legal everywhere -------------------------------------------------------------------------------------------
def test_search_plays_legally_in_an_evaluation_and_a_league(tmp_path) -> None:
    result = evaluate(GAME, [make_agent("search:12", GAME), make_agent("heuristic", GAME), make_agent("random", GAME),
                             make_agent("search:12", GAME)], deals=8, batch_size=8)
    assert result.decisions > 0
    from training.league import LeagueConfig, run_league

    league = run_league(LeagueConfig("tripoli", 4, ("search:8", "heuristic", "longsuit", "tight", "random"), deals=20,
                                     shard_groups=1, bootstrap=10))
    assert league.deals > 0


def test_search_as_a_vector_env_opponent_and_in_the_terminal() -> None:
    from envs.vector import CardVectorEnv

    env = CardVectorEnv(GAME, 3, [make_agent("search:8", GAME), make_agent("heuristic", GAME)])
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    from envs.core.game import sample_legal

    for _ in range(30):
        env.step(sample_legal(env.action_masks(), rng))
    cli_main(["watch", "tripoli", "--agents", "search:8", "heuristic", "random", "longsuit", "--seed", "1"])


def test_unsupported_configurations_fall_back_on_the_rollout_policy() -> None:
    game = make_game("tripoli", 4, num_deals=2)
    agent = make_agent("search:8", game)
    assert agent.why_not is not None
    result = evaluate(game, [agent] + [make_agent("longsuit", game)] * 3, deals=4, batch_size=4)
    assert result.decisions > 0 and agent.stats["searched"] == 0


# ----- 5. budgets -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["search:0", "search:abc", "search:1e9", "search:", "search:0ms", "search:99999999",
                                  "search:-3", "search:2.5"])
def test_bad_budgets_are_refused_in_one_line(spec: str) -> None:
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, GAME)
    assert "\n" not in str(e.value) and spec in str(e.value)


def test_bad_budget_on_the_command_line(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        cli_main(["eval", "--agents", "search:0", "heuristic", "heuristic", "heuristic", "--deals", "4", "--no-save"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "search:0" in err and err.count("\n") == 1


def test_budgets_parse() -> None:
    assert parse_budget("200") == (200, None) and parse_budget("50ms") == (None, 50.0)
    assert make_agent("search", GAME).playouts == 200
    assert make_agent("search:50ms", GAME).ms == 50.0
    assert make_agent("search:7", make_game("triolet", 4)).playouts == 7  # every game has a sampler


# ----- the compiled bots ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"paycards": "play"}, {"pay_suit": "auction"}])
def test_compiled_bots_choose_as_the_numpy_bots(options: dict) -> None:
    game = make_game("tripoli", 5, **options)
    rng = np.random.default_rng(0)
    obs_l, mask_l = [], []
    state = game.init(np.arange(60))
    walker = make_agent("random", game)
    while not state.done.all():
        live = np.flatnonzero(~state.done)
        sub = state.take(live)
        obs = game.observe(sub, sub.current_player)
        obs_l.append(obs)
        mask_l.append(sub.legal_action_mask.copy())
        game.step(state, walker.act(obs, sub.legal_action_mask, rng), tables=live)
    obs, mask = np.concatenate(obs_l), np.concatenate(mask_l)
    for style in STYLES:
        assert (TripoliCompiled(game, style).act(obs, mask, rng) == make_agent(style, game).act(obs, mask, rng)).all()


def test_compiled_rollout_plays_as_stepping_the_numpy_bot() -> None:
    bot = make_agent("longsuit", GAME)
    rng = np.random.default_rng(0)
    stepped = GAME.init(np.arange(40))
    rolled = stepped.copy()
    while not stepped.done.all():
        live = np.flatnonzero(~stepped.done)
        sub = stepped.take(live)
        GAME.step(stepped, bot.act(GAME.observe(sub, sub.current_player), sub.legal_action_mask, rng), tables=live)
    POLICY.rollout(rolled, np.arange(40))
    assert rolled.done.all() and (rolled.balance == stepped.balance).all()


@pytest.mark.parametrize("options", [{}, {"auto_forced": False}])
def test_compiled_replay_is_the_generic_replay(options: dict) -> None:
    from envs.core.sampling import DealSampler

    game = make_game("tripoli", 4, **options)
    policy = TripoliCompiled(game, "longsuit")
    sampler = TripoliSampler(game, policy)
    sampler.judges = (policy, TripoliCompiled(game, "tight"))
    sampler._lik = (np.array([[-1, 0, 1, 0]]), np.array([[0.0, 0.2, 0.0, 0.5]]))
    global POLICY
    saved, POLICY = POLICY, policy
    try:
        points = list(seat0_decisions(deck_for(300), 3, game=game))
    finally:
        POLICY = saved
    for point in points[::2]:
        decks, dealers = sampler.draw(point.view, 20, 1)
        owner = np.zeros(len(decks), np.int64)
        fast = sampler._replay([point.view], decks, dealers, owner, [np.random.default_rng(0)])
        slow = DealSampler._replay(sampler, [point.view], decks, dealers, owner, [np.random.default_rng(0)])
        ok = fast[1]
        assert (ok == slow[1]).all() and ok.any()
        assert (fast[2][ok] == slow[2][ok]).all() and np.array_equal(fast[3][ok], slow[3][ok], equal_nan=True)
        assert np.allclose(fast[5][ok], slow[5][ok]) and (fast[5][ok] < 0).any()
        a, b = fast[0].take(np.flatnonzero(ok)), slow[0].take(np.flatnonzero(ok))
        assert (a.hands == b.hands).all() and (a.balance == b.balance).all()
        assert (a.legal_action_mask == b.legal_action_mask).all()


@pytest.mark.parametrize(("field", "random_like"), [("random", True), ("longsuit", False)])
def test_the_other_seats_models_follow_their_play(field: str, random_like: bool) -> None:

    agent = make_agent("search:40", GAME)
    shares = random_shares(GAME, agent, make_agent(field, GAME), 8)
    assert shares and (np.mean(shares) > 0.6 if random_like else np.mean(shares) < 0.1)
