"""Style families (agents/styles.py): members are fixed by their number, stay inside the zoo's range, play legal
actions and differently from each other; the careless family's share of random moves; ``styles:N`` and
``careless-styles:N`` and ``careless-bots:N`` in an opponent pool; one-line refusals."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heldout import NoisyHeuristic, SloppyHeuristic, TripoliManiac, TripoliRock, TripoliStation
from agents.registry import AgentSpecError, make_agent
from agents.styles import (
    CARELESS_RANGE,
    FAMILIES,
    LOOSE_CALLS,
    LOOSE_FAMILIES,
    Careless,
    careless_share,
    loose_params,
    style_params,
)
from agents.tripoli_bots import TripoliAggressive, TripoliTight
from agents.tripoli_heuristic import TripoliHeuristic
from agents.zoo import BOTS, bot_class, bot_names
from envs.core.game import sample_legal
from envs.registry import make_game
from training.evaluate import evaluate
from training.opponent_pool import parse_opponents

BETTING = ("bet_above", "call_margin", "bet_scale")


@pytest.mark.parametrize("k", range(40))
def test_tripoli_members_lie_between_tight_and_aggressive(k: int) -> None:
    _, params = style_params("tripoli", k)
    for name in BETTING + ("swap_below", "hopeless_below", "spare_price"):
        low, high = sorted((getattr(TripoliTight, name), getattr(TripoliAggressive, name)))
        assert low <= params[name] <= high, (name, params[name])
    assert params["raise_above"] > params["bet_above"]


def test_tripoli_held_out_styles_lie_outside_the_family() -> None:
    for style in (TripoliManiac, TripoliStation, TripoliRock):
        outside = [name for name in BETTING
                   if not min(TripoliTight.__dict__[name], TripoliAggressive.__dict__[name]) <= getattr(style, name)
                   <= max(TripoliTight.__dict__[name], TripoliAggressive.__dict__[name])]
        assert outside, style.name


@pytest.mark.parametrize("k", range(40))
def test_tripoli_loose_members_call_looser_than_every_zoo_bot_and_bet_little(k: int) -> None:
    base, params = loose_params("tripoli", k)
    zoo = [bot_class("tripoli", name) for name in BOTS["tripoli"] if name != "random"]
    assert LOOSE_CALLS[0] <= params["call_margin"] < min(bot.call_margin for bot in zoo)
    assert TripoliHeuristic.bet_above <= params["bet_above"] < params["raise_above"] <= 0.95
    assert params["bet_scale"] <= TripoliHeuristic.bet_scale
    assert TripoliStation.call_margin < LOOSE_CALLS[0] and TripoliStation.bet_above > 0.85  # the station: outside
    assert loose_params("tripoli", k) == loose_params("tripoli", k) != loose_params("tripoli", k + 1)
    assert {n: v for n, v in style_params("tripoli", k)[1].items() if n not in BETTING + ("raise_above",)} != {
        n: v for n, v in params.items() if n not in BETTING + ("raise_above",)}  # a stream of its own


def test_loose_members_play_in_pools_and_other_games_refuse_them() -> None:
    game = make_game("tripoli", 4)
    pool = parse_opponents("loose-styles:3=1.5,loose-style:7", game)
    assert [(m.name, m.weight) for m in pool] == [(f"loose-style:{k}", 0.5) for k in range(3)] + [("loose-style:7", 1)]
    agent = make_agent("loose-style:2", game)
    assert agent.name == "loose-style:2" and agent.call_margin == loose_params("tripoli", 2)[1]["call_margin"]
    with pytest.raises(AgentSpecError, match="the game triolet has no loose family"):
        make_agent("loose-style:0", make_game("triolet", 4))


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_members_are_fixed_legal_and_distinct(name: str) -> None:
    game = make_game(name, 4)
    assert style_params(name, 5) == style_params(name, 5) and style_params(name, 5) != style_params(name, 6)
    state, rng = game.init(2, batch_size=256), np.random.default_rng(2)
    for _ in range(6):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    live = ~state.done
    obs, mask = game.observe(state, np.maximum(state.current_player, 0))[live], state.legal_action_mask[live]
    agents = [make_agent(f"style:{k}", game) for k in range(3)]
    actions = [a.act(obs, mask, np.random.default_rng(0)) for a in agents]
    for chosen in actions:
        assert mask[np.arange(len(chosen)), chosen].all()
    heuristic = make_agent("heuristic", game)
    base = evaluate(game, [heuristic] * 4, 32, seed=3).group_returns
    results = [evaluate(game, [a] + [heuristic] * 3, 32, seed=3).group_returns for a in agents]
    assert not all(np.array_equal(r, base) for r in results)  # styles of their own


def test_styles_in_an_opponent_pool_share_their_weight() -> None:
    game = make_game("tripoli", 4)
    pool = parse_opponents("heuristic=2,styles:4=2", game)
    assert [(m.name, m.weight) for m in pool] == [("heuristic", 2.0)] + [(f"style:{k}", 0.5) for k in range(4)]
    with pytest.raises(AgentSpecError, match="'style:1' is given twice"):
        parse_opponents("styles:2,style:1", game)
    with pytest.raises(AgentSpecError, match="styles:N needs a number of players N from 1 to 64"):
        parse_opponents("styles:0", game)
    pool = parse_opponents("careless-styles:3=1.5,styles:2", game)
    assert [(m.name, m.weight) for m in pool] == ([(f"careless-style:{k}", 0.5) for k in range(3)]
                                                  + [(f"style:{k}", 0.5) for k in range(2)])
    with pytest.raises(AgentSpecError, match="'careless-style:0' is given twice"):
        parse_opponents("careless-style:0,careless-styles:2", game)
    with pytest.raises(AgentSpecError, match="careless-styles:N needs a number of players N from 1 to 64"):
        parse_opponents("careless-styles:x", game)
    pool = parse_opponents("careless-bots:2=1,careless-bot:7", game)
    assert [(m.name, m.weight) for m in pool] == [("careless-bot:0", 0.5), ("careless-bot:1", 0.5),
                                                  ("careless-bot:7", 1.0)]


@pytest.mark.parametrize("spec", ["styles:1000000000000=1", "careless-styles:65", "careless-bots:100=2", "styles:²",
                                  "styles:" + "9" * 5000, "heuristic,careless-bots:65", "loose-styles:65"])
def test_a_family_of_more_than_64_members_is_refused_before_one_is_built(spec: str, monkeypatch) -> None:
    def no_member(*args, **kwargs):
        raise AssertionError("a member was built")

    game = make_game("tripoli", 4)
    monkeypatch.setattr("training.opponent_pool.make_agent", lambda name, game: no_member() if ":" in name else None)
    with pytest.raises(AgentSpecError, match=r"s:N needs a number of players N from 1 to 64, e\.g\. ") as info:
        parse_opponents(spec, game)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_careless_bots_cycle_through_the_zoo_without_random(name: str) -> None:
    game = make_game(name, 4)
    bots = [b for b in bot_names(name) if b != "random"]
    assert bots[0] == "heuristic" and len(bots) >= 2
    for k in range(2 * len(bots) + 1):
        member = make_agent(f"careless-bot:{k}", game)
        assert member.name == f"careless-bot:{k}" and member.epsilon == careless_share(k)
        assert member.base.name == bots[k % len(bots)]


@pytest.mark.parametrize("k", range(40))
def test_careless_shares_lie_in_their_range_and_are_fixed(k: int) -> None:
    low, high = CARELESS_RANGE
    assert low <= careless_share(k) <= high and careless_share(k) == careless_share(k)


def test_noisy_lies_inside_the_careless_range_and_sloppy_beyond_it() -> None:
    game = make_game("tripoli", 4)
    noisy, sloppy = NoisyHeuristic(game), SloppyHeuristic(game)
    assert CARELESS_RANGE[0] <= noisy.epsilon <= CARELESS_RANGE[1] < sloppy.epsilon
    assert (noisy.name, sloppy.name) == ("noisy", "sloppy")
    assert len({careless_share(k) for k in range(8)}) == 8  # the members differ in carelessness


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_careless_players_take_random_moves_at_their_share(name: str) -> None:
    """With share 0 a careless player is its base; with share e it leaves the base's choice at about e of the
    decisions where another legal action exists (a random move may also fall on the base's choice), and only for
    legal actions; ``careless-style:K``'s base is ``style:K`` (the heuristic without a family)."""
    game = make_game(name, 4)
    state, rng = game.init(5, batch_size=512), np.random.default_rng(5)
    for _ in range(8):
        game.step(state, sample_legal(state.legal_action_mask, rng), tables=~state.done)
    live = ~state.done
    obs, mask = game.observe(state, np.maximum(state.current_player, 0))[live], state.legal_action_mask[live]
    member = make_agent("careless-style:3", game)
    assert member.name == "careless-style:3" and member.epsilon == careless_share(3)
    assert member.base.name == ("style:3" if name in FAMILIES else "heuristic")
    base = member.base.act(obs, mask, np.random.default_rng(0))
    assert np.array_equal(Careless(game, member.base, 0.0).act(obs, mask, np.random.default_rng(1)), base)
    choices = mask.sum(axis=1)
    changed, expected = 0, 0.0
    for seed in range(20):
        acts = Careless(game, member.base, 0.5).act(obs, mask, np.random.default_rng(seed))
        assert mask[np.arange(len(acts)), acts].all()
        changed += int((acts != base).sum())
        expected += float((0.5 * (1 - 1 / choices)).sum())
    assert abs(changed - expected) < 4 * np.sqrt(expected)
    for bad in (1.5, -0.1, float("nan"), "0.2", True, np.bool_(True)):
        with pytest.raises(ValueError, match=r"share of random moves\) must be a probability in \[0, 1\]"):
            Careless(game, member.base, bad)
    assert Careless(game, member.base, np.float32(0.25)).epsilon == 0.25  # numpy numbers count as their values


@pytest.mark.parametrize(("spec", "game", "message"), [
    ("style:x", "tripoli", "a style player is style:K with an integer K ≥ 0"),
    ("style:-1", "tripoli", "a style player is style:K with an integer K ≥ 0"),
    ("style:2", "triolet", "the game triolet has no style family (games with one: tripoli, flipflop)"),
    ("loose-style:x", "tripoli", "a loose-style player is loose-style:K with an integer K ≥ 0"),
    ("loose-style:1", "flipflop", "the game flipflop has no loose family (games with one: tripoli)"),
    ("careless-style:", "flipflop", "a careless-style player is careless-style:K with an integer K ≥ 0"),
    ("careless-style:1.5", "tripoli", "a careless-style player is careless-style:K with an integer K ≥ 0"),
    ("careless-bot:-2", "triolet", "a careless-bot player is careless-bot:K with an integer K ≥ 0"),
    ("style:²", "tripoli", "a style player is style:K with an integer K ≥ 0"),
])
def test_bad_style_specs_are_refused(spec: str, game: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        make_agent(spec, make_game(game, 4))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_cardgym_agents_lists_the_family_spec_forms_each_game_can_build(name: str) -> None:
    from training.cmd_agents import agents_text, spec_forms

    game = make_game(name, 4)
    forms = [form for form, _ in spec_forms(name) if form.endswith(":K")]
    assert ("style:K" in forms) == (name in FAMILIES) and {"careless-style:K", "careless-bot:K"} <= set(forms)
    assert ("loose-style:K" in forms) == (name in LOOSE_FAMILIES)
    for form in forms:
        assert make_agent(form.replace(":K", ":3"), game).name == form.replace(":K", ":3")
        assert f"  {form} " in agents_text(name)
