"""T16 (tripoli.md): poker hand ranking of envs.core.poker, checked against counts, the worked checks, a plain
reference evaluator and brute force over five-card subsets."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.core.cards import CARD_BITS, mask_of, parse_card, popcount
from envs.core.poker import CATEGORY_BASE, CATEGORY_NAMES, ROYAL_FLUSH_VALUE, best_five, describe, mask_rank


def hand(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def value(text: str) -> int:
    return int(mask_rank(np.array([mask_of(hand(text))]))[0])


def five_card_values(cards: np.ndarray) -> np.ndarray:
    """Values of five-card hands given as card ids, shape ``(..., 5)``."""
    return mask_rank(np.bitwise_or.reduce(CARD_BITS[cards], axis=-1))


def category(values: np.ndarray | int) -> np.ndarray | int:
    """Category 0 (high card) … 8 (straight flush) of hand values (the encoding of envs/core/poker.py)."""
    return values // CATEGORY_BASE


def reference_key(cards: list[int]) -> tuple[int, ...]:
    """Plain T16 ranking of exactly five cards, written straight from the rule: (category, deciding ranks…)."""
    ranks = sorted((c % 13 for c in cards), reverse=True)
    flush = len({c // 13 for c in cards}) == 1
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    by_group = tuple(r for r, _ in groups)
    straight_top = None
    if len(set(ranks)) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:  # A-2-3-4-5: the ace is low, the five is the top
            straight_top = 3
    if flush and straight_top is not None:
        return (8, straight_top)
    if shape == (4, 1):
        return (7, *by_group)
    if shape == (3, 2):
        return (6, *by_group)
    if flush:
        return (5, *ranks)
    if straight_top is not None:
        return (4, straight_top)
    if shape == (3, 1, 1):
        return (3, *by_group)
    if shape == (2, 2, 1):
        return (2, *by_group)
    if shape == (2, 1, 1, 1):
        return (1, *by_group)
    return (0, *ranks)


@pytest.fixture(scope="module")
def all_hands() -> tuple[np.ndarray, np.ndarray]:
    """All 2,598,960 five-card hands as card ids and their values."""
    n = comb(52, 5)
    cards = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(52), 5)), dtype=np.int8,
                        count=5 * n).reshape(n, 5)
    return cards, five_card_values(cards)


def random_masks(rng: np.random.Generator, sizes: np.ndarray) -> np.ndarray:
    """One random mask per entry of ``sizes`` (cards per hand), seeded."""
    order = np.argsort(rng.random((sizes.size, 52)), axis=1)
    chosen = np.arange(52) < sizes[:, None]
    return np.bitwise_or.reduce(np.where(chosen, CARD_BITS[order], np.uint64(0)), axis=1)


def brute_force(masks: np.ndarray) -> np.ndarray:
    """Best value over every five-card subset of each mask (all masks of the same size)."""
    n = int(popcount(masks[0]))
    ids = np.array([[c for c in range(52) if int(m) >> c & 1] for m in masks])
    subsets = np.array(list(itertools.combinations(range(n), 5)))
    return five_card_values(ids[:, subsets]).max(axis=1)


def test_t16_category_counts_all_hands(all_hands):
    _, values = all_hands
    counts = np.bincount(category(values), minlength=9)
    assert counts.tolist() == [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    assert np.unique(values).size == 7_462


def test_t16_order_matches_plain_reference(all_hands):
    cards, values = all_hands
    distinct, first = np.unique(values, return_index=True)
    keys = [reference_key(cards[i].tolist()) for i in first]
    # The classes sorted by value are sorted by the reference key, strictly (no two classes share a key) …
    assert all(a < b for a, b in itertools.pairwise(keys))
    # … and sampled hands get the key of their class.
    key_of = dict(zip(distinct.tolist(), keys, strict=True))
    sample = np.random.default_rng(16).choice(values.size, 20_000, replace=False)
    for i in sample:
        assert reference_key(cards[i].tolist()) == key_of[int(values[i])]
    assert [CATEGORY_NAMES[category(int(v))] for v in distinct[[0, -1]]] == ["high card", "straight flush"]


def test_t16_worked_check_three_sevens_beat_two_pair():
    assert value("7c 7d 7h 2s 3s") > value("8c 8d 4h 4s 2d")
    assert CATEGORY_NAMES[category(value("7c 7d 7h 2s 3s"))] == "three of a kind"
    assert CATEGORY_NAMES[category(value("8c 8d 4h 4s 2d"))] == "two pair"


def test_t16_worked_check_wheel_is_the_lowest_straight(all_hands):
    wheel, six_high = value("Ac 2d 3h 4s 5c"), value("2d 3h 4s 5c 6c")
    assert CATEGORY_NAMES[category(wheel)] == CATEGORY_NAMES[category(six_high)] == "straight"
    assert wheel < six_high
    _, values = all_hands
    assert wheel == values[category(values) == 4].min()
    assert value("Ac Kd Qh Js Tc") > value("Kd Qh Js Tc 9c")
    assert category(value("Ac Kd Qh 2s 3c")) == 0  # no wrap-around K-A-2


def test_t16_worked_check_royal_flush_is_best(all_hands):
    _, values = all_hands
    royals = [value(f"A{s} K{s} Q{s} J{s} T{s}") for s in "cdhs"]
    assert royals == [ROYAL_FLUSH_VALUE] * 4 == [int(values.max())] * 4
    assert (values == ROYAL_FLUSH_VALUE).sum() == 4


def test_t16_within_category_ranks_then_kickers():
    assert value("9c 9d 9h 9s 2c") > value("8c 8d 8h 8s Ac")
    assert value("9c 9d 9h 9s 3c") > value("9c 9d 9h 9s 2c")
    assert value("7c 7d 7h 4s 4c") > value("6c 6d 6h As Ac")
    assert value("Ac Jc 9c 6c 3c") > value("Ad Jd 9d 6d 2d")
    assert value("8c 8d 4h 4s 3d") > value("8h 8s 4c 4d 2c")
    assert value("8c 8d 5h 5s 2d") > value("8h 8s 4c 4d Ac")
    assert value("Kc Kd 5h 4s 3d") > value("Kh Ks 5c 4d 2c")
    assert value("Ac Qd 9h 7s 3d") > value("Ah Qs 9c 7d 2c")
    assert value("Ac Qd 9h 7s 3d") == value("Ad Qh 9s 7c 3h")  # suits never rank: a split


@settings(max_examples=300)
@given(st.sets(st.integers(0, 51), min_size=5, max_size=18), st.permutations(range(4)))
def test_t16_suits_never_rank(cards, perm):
    renamed = [perm[c // 13] * 13 + c % 13 for c in cards]
    masks = np.array([mask_of(cards), mask_of(renamed)])
    values = mask_rank(masks)
    assert values[0] == values[1]
    chosen = best_five(masks)
    assert mask_rank(chosen).tolist() == values.tolist()


@pytest.mark.parametrize("size,count", [(6, 800), (7, 800), (8, 500), (9, 300), (10, 300), (11, 200), (12, 200),
                                        (15, 40), (18, 20)])
def test_t16_best_of_many_cards_matches_brute_force(size, count):
    masks = random_masks(np.random.default_rng(size), np.full(count, size))
    assert mask_rank(masks).tolist() == brute_force(masks).tolist()


def test_t16_best_of_many_cards_with_two_flushes():
    hands = ["Ac Kc 9c 7c 2c Ad Kd 9d 7d 3d", "2h 3h 4h 5h 6h 9s Ts Js Qs Ks 7c", "Ac Kc Qc Jc 9c Ad Kd Qd Jd 9d"]
    masks = np.array([mask_of(hand(h)) for h in hands])
    assert [describe(v) for v in mask_rank(masks)] == [
        "flush, A K 9 7 3", "straight flush, K high", "flush, A K Q J 9"]
    assert best_five(masks).tolist() == [mask_of(hand(h)) for h in ("Ad Kd 9d 7d 3d", "9s Ts Js Qs Ks",
                                                                         "Ac Kc Qc Jc 9c")]


def test_t16_best_five_is_five_cards_of_the_hand_with_its_value():
    rng = np.random.default_rng(5)
    masks = random_masks(rng, rng.integers(5, 53, size=20_000)).reshape(100, 200)
    chosen = best_five(masks)
    assert chosen.shape == masks.shape
    assert (popcount(chosen) == 5).all()
    assert ((chosen & ~masks) == 0).all()
    assert (mask_rank(chosen) == mask_rank(masks)).all()


def test_t16_best_five_picks_the_lowest_cards_among_equals():
    cases = {
        "9c 9d 9h 9s Kc Kd Kh": "9c 9d 9h 9s Kc",
        "7c 7d 7h 4s 4c 4d": "7c 7d 7h 4c 4d",
        "8s 8h 5d 5c 3s 3h Ah": "8h 8s 5c 5d Ah",
        "As Ad 2h 3s 4c 5d 5h": "Ad 2h 3s 4c 5d",
        "Qh Qs Jd Js 9h 9s 9c Td": "9c 9h 9s Qh Qs",
    }
    masks = np.array([mask_of(hand(h)) for h in cases])
    assert best_five(masks).tolist() == [mask_of(hand(h)) for h in cases.values()]


def test_t16_describe():
    assert describe(value("7c 7d 7h 4s 4c")) == "full house, 7s over 4s"
    assert describe(value("Ac 2d 3h 4s 5c")) == "straight, 5 high"
    assert describe(value("As Ks Qs Js Ts")) == "royal flush"
    assert describe(value("9s Ks Qs Js Ts")) == "straight flush, K high"
    assert describe(value("9c 9d 9h 9s Kd")) == "four of a kind, 9s, K kicker"
    assert describe(value("Ac Jc 9c 6c 2c")) == "flush, A J 9 6 2"
    assert describe(value("Tc Td Th 2s 3s")) == "three of a kind, 10s, kickers 3 2"
    assert describe(value("8c 8d 4h 4s 2d")) == "two pair, 8s and 4s, 2 kicker"
    assert describe(value("Ac Ad 4h 9s 2d")) == "one pair, As, kickers 9 4 2"
    assert describe(value("Ac Qd 4h 9s 2d")) == "high card, A Q 9 4 2"


def test_t16_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 5 cards"):
        mask_rank(np.array([mask_of(hand("Ac Kc Qc Jc"))]))
    with pytest.raises(ValueError, match="bits 0..51"):
        mask_rank(np.array([np.uint64(1 << 60) | mask_of(hand("Ac Kc Qc Jc 9d"))]))
    with pytest.raises(ValueError, match="not a poker hand value"):
        describe(9 * 13**5)
