"""Game logs (envs/gamelog.py): recording through the AEC face, exact replay for every game, public events only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from envs.aec import CardGymEnv
from envs.core.cards import card_str
from envs.core.checks import ArgumentError
from envs.gamelog import GameRecorder, diff_events, field_value, public_view, read_log, replay
from envs.registry import make_game
from training.cli import main as cli_main

# (game, players, options): every game, small and large tables, multi-deal episodes.
CASES = [
    ("tripoli", 2, {}),
    ("tripoli", 5, {}),
    ("tripoli", 4, {"num_deals": 3}),
    ("triolet", 3, {}),
    ("triolet", 6, {"max_turns": 200}),
    ("triolet", 4, {"faceup_sets": True, "max_turns": 60}),
    ("flipflop", 2, {}),
    ("flipflop", 5, {}),
    ("flipflop", 3, {"num_deals": 4}),
]
IDS = [f"{g}-{n}p-{'-'.join(f'{k}{v}' for k, v in o.items()) or 'default'}" for g, n, o in CASES]
EPISODES = 3


def play_random(env: CardGymEnv, seed: int, rng: np.random.Generator, options: dict | None = None) -> list:
    """One random game on ``env``; returns the core's rewards of every step."""
    env.reset(seed=seed, options=options)
    rewards = []
    while not bool(env.state_.done[0]):
        env.step(int(rng.choice(env.legal_actions())))
        rewards.append(env.state_.rewards[0].copy())
    return rewards


def same_state(a, b) -> bool:
    # Tripoli keeps the stacked first deck in ``decks`` (-1 when the deal was shuffled from the seed); a replay is
    # dealt from the logged deck, so that record differs while the game is the same. The forced-move report arrays
    # may be wider in one (a face re-deals its state in place, keeping widened arrays): their reported moves count.
    def moves(s):
        k = int(s.forced_count[0])
        return [s.forced_seat[0, :k].tolist(), s.forced_action[0, :k].tolist(), s.forced_card[0, :k].tolist()]

    return moves(a) == moves(b) and all(np.array_equal(getattr(a, f.name), getattr(b, f.name))
                                        for f in dataclasses.fields(a)
                                        if f.name != "decks" and not f.name.startswith("forced_"))


@pytest.mark.parametrize(("name", "n", "options"), CASES, ids=IDS)
def test_log_replays_every_game_exactly(tmp_path, name, n, options):
    game = make_game(name, n, **options)
    path = tmp_path / "games.jsonl"
    env = CardGymEnv(game, log_path=path)
    rng = np.random.default_rng(n)
    runs = []
    for ep in range(EPISODES):
        rewards = play_random(env, 100 + ep, rng)
        runs.append((rewards, env.state_.copy(), dict(env._cumulative_rewards)))
    env.close()
    logs = read_log(path)
    assert len(logs) == EPISODES
    for log, (rewards, final, _cum) in zip(logs, runs, strict=True):
        h = log.header
        assert (h["game"], h["num_players"]) == (name, n)
        assert {k: h["options"][k] for k in options} == options
        assert sorted(h["deck"]) == game.deck_ids().tolist()
        assert len(h["deck_cards"]) == len(h["deck"]) and "hidden cards included" in h["deck_note"]
        assert [s["name"] for s in log.steps] == [game.action_name(a) for a in log.actions()]
        replayed_game, state, replayed = replay(log)
        assert len(replayed) == len(rewards)
        assert all(np.array_equal(a, b) for a, b in zip(replayed, rewards, strict=True))
        assert same_state(state, final)
        for seat in range(n):
            assert np.array_equal(replayed_game.observe(state, seat), game.observe(final, seat))
        result = log.result
        assert result is not None and result["steps"] == len(rewards)
        assert result["terminated"] == bool(final.terminated[0]) and result["truncated"] == bool(final.truncated[0])
        total = np.asarray(h["rewards"]) + np.sum(rewards, axis=0)
        assert np.allclose(result["returns"], total)
        ends = [line for line in log.lines if line["type"] == "deal_end"]
        assert np.allclose(np.sum([e["returns"] for e in ends], axis=0), total)
        assert log.lines[-1]["type"] == "result"


@pytest.mark.parametrize("name", ["tripoli", "triolet", "flipflop"])
def test_stacked_deck_and_dealer_are_logged_as_given(tmp_path, name):
    game = make_game(name, 4)
    deck = np.random.default_rng(7).permutation(game.deck_ids())
    env = CardGymEnv(game, log_path=tmp_path / "g.jsonl")
    play_random(env, 5, np.random.default_rng(0), options={"deck": deck.tolist(), "dealer": 2})
    env.close()
    (log,) = read_log(tmp_path / "g.jsonl")
    assert log.header["stacked"] and log.header["deck"] == deck.tolist() and log.header["dealer"] == 2
    _, state, _ = replay(log)
    assert same_state(state, env.state_)


def test_multi_deal_log_has_each_deal():
    game = make_game("tripoli", 3, num_deals=3)
    env = CardGymEnv(game)
    env.recorder = GameRecorder(None)  # in memory
    play_random(env, 1, np.random.default_rng(1))
    log = env.recorder.log()
    deals = [line["deal"] for line in log.lines if line["type"] == "deal"]
    ends = [line["deal"] for line in log.lines if line["type"] == "deal_end"]
    assert deals == ends == list(range(int(env.state_.deal[0]) + 1))
    assert len(deals) >= 3  # three deals and T28's final round
    text = log.text()
    for d in deals:
        assert f"=== deal {d + 1}" in text and f"--- deal {d + 1} over" in text


@pytest.mark.parametrize(("name", "n"), [("tripoli", 4), ("triolet", 4), ("flipflop", 3)])
def test_events_are_public_the_same_seen_from_every_seat(name, n):
    """Events come only from public fields: computed from any seat's observation they are the same (and so hold
    no card hidden from any seat)."""
    game = make_game(name, n)
    view = public_view(name)
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(40):
        if checked > 10:
            break
        state = game.init(seed, 1)
        while not state.done[0]:
            before = [game.observe(state, s)[0] for s in range(n)]
            game.step(state, np.asarray([rng.choice(np.flatnonzero(state.legal_action_mask[0]))]))
            after = [game.observe(state, s)[0] for s in range(n)]
            events = [diff_events(view, before[s], after[s], n, viewer=s) for s in range(n)]
            assert all(e == events[0] for e in events[1:])
            checked += bool(events[0])
    assert checked > 10


def test_events_never_name_a_hidden_card():
    """Tripoli at the start of a deal: no card is public, so the deal's first events name none; the selected poker
    cards stay out of the log until the showdown (the secret selection is marked as such)."""
    game = make_game("tripoli", 4)
    env = CardGymEnv(game)
    env.recorder = GameRecorder(None)
    play_random(env, 11, np.random.default_rng(2))
    log = env.recorder.log()
    assert log.lines[1]["type"] == "deal" and log.lines[1]["events"] == []
    hand_cards = {card_str(c, True) for c in range(52)}
    for step in log.steps:
        assert step["secret"] == step["name"].startswith("select ")
        for e in step["events"]:
            if e["field"] not in ("shown", "played_by"):  # the only card fields Tripoli makes public
                assert not any(c in e["text"].split() for c in hand_cards), e


def test_text_and_cli_replay(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    env = CardGymEnv(make_game("flipflop", 3, num_deals=2), log_path=path)
    play_random(env, 4, np.random.default_rng(4))
    play_random(env, 5, np.random.default_rng(5))
    env.close()
    cli_main(["replay", str(path), "--verify"])
    out = capsys.readouterr().out
    assert "game 1 of 2" in out and "game 2 of 2" in out and out.count("verified") == 2
    assert "=== deal 1" in out and "result after" in out
    logs = read_log(path)
    for step in logs[0].steps:
        assert step["name"] in out
    cli_main(["replay", str(path), "--game", "2", "--ascii"])
    out = capsys.readouterr().out
    assert "game 1 of 2" not in out and "♠" not in out and "♥" not in out


def test_recording_env_passes_the_pettingzoo_api_test(tmp_path):
    env = CardGymEnv(make_game("triolet", 3), log_path=tmp_path / "api.jsonl")
    api_test(env, num_cycles=200)
    env.close()
    logs = read_log(tmp_path / "api.jsonl")
    assert logs and all(log.header["game"] == "triolet" for log in logs)
    replay(logs[0])


# ----- deal summaries: only cards still in the hand (Flip Flop's "known in hand") ------------------------------------
def flipflop_scripted(num_deals: int, front: str, moves: list[str]) -> tuple[CardGymEnv, list[dict]]:
    """Two players, dealer player_0, a deck dealt ``front`` first (``"2h 3h …"``: deck[2k] to player_1, deck[2k+1]
    to player_0 for k < 5, deck[9] the flip card, deck[10] the top of the stock), then the other cards in id order;
    ``moves`` are action names."""
    game = make_game("flipflop", 2, num_deals=num_deals)
    ids = {card_str(c, False).lower(): c for c in range(52)}
    first = [ids[c] for c in front.split()]
    deck = first + [c for c in range(52) if c not in first]
    by_name = {game.action_name(a): a for a in range(game.num_actions)}
    env = CardGymEnv(game)
    env.recorder = GameRecorder(None)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    for move in moves:
        env.step(by_name[move])
    return env, env.recorder.log().lines


def summary(lines: list[dict], deal: int = 0) -> tuple[dict, list]:
    end = next(x for x in lines if x["type"] == "deal_end" and x["deal"] == deal)
    shown = {s: " ".join(card_str(c, False) for c in cards) for s, cards in end["shown"].items()}
    return shown, end["returns"]


def test_summary_leaves_out_cards_discarded_or_laid():
    """player_1 shows 2♥ at its first turn (F12, hearts are the flip suit of K♥) and discards it; player_0 takes it
    from the pile and lays it in 2♥3♥4♥, discards 5♠; player_1 drops: everybody shows (F19). The summary lists each
    hand as shown then — player_0 K♥ 6♠, player_1 the drawn 2♣ and 9♣ 10♣ J♣ K♠ — and not 2♥, once known in both
    hands. Money: antes 3 each; flip pot 2 to player_1's 2♥; no diamond was dealt, so the flop pot stays; player_1
    (41 points) is caught by player_0 (16) and pays a stake: player_0 takes the game pot 3."""
    env, lines = flipflop_scripted(1, "2h 3h 9c 4h tc 5s jc 6s ks kh",
                                   ["draw stock", "discard 2♥", "draw discard 2♥", "lay run 2♥3♥4♥", "discard 5♠",
                                    "drop"])
    assert summary(lines) == ({"0": "Kh 6s", "1": "2c 9c Tc Jc Ks"}, [0.0, -2.0])
    text = env.recorder.log().text()
    assert "player_0 showed K♥ 6♠" in text and "player_1 showed 2♣ 9♣ 10♣ J♣ K♠" in text
    replay(env.recorder.log())


def test_summary_of_a_deal_that_ends_and_deals_the_next():
    """player_1 shows 2♥ (F12), draws J♣ and tunks out with 9♣10♣J♣ and 2♥3♥4♥ (F20: player_0 pays a stake). In a
    single deal the end is observed: player_0, who had no turn, shows its lowest flop-suit card 8♦ at once (F12)
    beside the flip card K♥. In a session the last lay deals the next deal in the same step, so the old deal's end
    is not observed: the summary keeps what was public before it (player_0's K♥) and leaves out the acting player's
    cards, whose hand that step emptied (2♥ was known in it). Money of the single deal: player_1 −3 + flip pot 2 +
    game pot 3 = +2; player_0 −3 + flop pot 2 (8♦ is the only diamond) − 1 = −2."""
    front = "2h 5s 3h 6s 4h 8d 9c qs tc kh jc"
    moves = ["draw stock", "lay run 9♣10♣J♣", "lay run 2♥3♥4♥"]
    _, single = flipflop_scripted(1, front, moves)
    assert summary(single) == ({"0": "8d Kh"}, [-2.0, 2.0])
    env, session = flipflop_scripted(2, front, moves)
    assert summary(session)[0] == {"0": "Kh"}
    assert [x["deal"] for x in session if x["type"] == "deal"] == [0, 1]


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_flipflop_summary_cards_are_in_the_final_hands(seed, n):
    """A single deal ends observed: every card a summary lists is in that seat's hand at the end."""
    game = make_game("flipflop", n)
    env = CardGymEnv(game)
    env.recorder = GameRecorder(None)
    play_random(env, seed, np.random.default_rng(seed))
    (end,) = [x for x in env.recorder.lines if x["type"] == "deal_end"]
    hand = next(f for f in public_view("flipflop").fields if f.name == "hand")
    for s, cards in end["shown"].items():
        own = field_value(hand, game.observe(env.state_, int(s))[0], int(s), n)
        assert set(cards) <= set(own)


@pytest.mark.parametrize("path", [5, 1.5, b"game.jsonl", ["game.jsonl"]])
def test_recorder_refuses_a_path_that_is_not_one(path) -> None:
    with pytest.raises(ArgumentError, match="path must be None or a file path"):
        GameRecorder(path)
