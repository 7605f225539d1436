"""The uniform draw of a pick (games/choice.py): every game's random moves, and so the outcome
digests and seeded selfplay records, depend on it drawing exactly what it always has."""
import random

import pytest

from games.choice import check_pick, draw_uniform


@pytest.mark.parametrize("n", [2, 3, 7, 12, 21, 22, 30])
def test_a_multi_option_pick_is_random_sample_s_own(n):
    # draw_uniform writes out random.sample's draw for small populations: the same picks from the
    # same generator, left in the same state, for every size of pick (the pool and the set draws
    # of random.sample part at 21 options).
    options = tuple(range(100, 100 + n))
    for seed in range(20):
        for size in range(2, n + 1):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert draw_uniform(options, size, size, ours) == tuple(theirs.sample(options, size))
            assert ours.getstate() == theirs.getstate()


def test_every_drawn_pick_is_legal_and_every_size_comes_up():
    rnd = random.Random(7)
    options = ("a", "b", "c", "d", "e")
    sizes = set()
    for _ in range(2000):
        pick = draw_uniform(options, 1, 4, rnd)
        assert check_pick(list(pick), "test", options, 1, 4) == pick
        sizes.add(len(pick))
    assert sizes == {1, 2, 3, 4}
