"""San Juan's header during a round-start discard names no roles: the view still holds the last
round's until the first role of the new round is chosen."""
import random

import games
from games.sanjuan.text import ROUND_START, Text
from protocol.fairness import local_streams


def _round_start_view():
    """A view of a seat asked something at the start of round 2 or later (random play, seeded)."""
    sanjuan = games.get("sanjuan")
    for seed in range(50):
        s = sanjuan.setup(["Ana", "Bo"], {}, local_streams(seed))
        rng, pick = local_streams(seed + 1000), random.Random(seed)
        while not s.over:
            seat = sanjuan.to_act(s)[0]
            v = sanjuan.view(s, seat)
            if v["round"] > 1 and v["stage"] in ROUND_START:
                return v
            p = v["prompt"]
            k = pick.randint(p["min"], p["max"])
            sanjuan.apply(s, seat, pick.sample(p["options"], k), rng)
    raise AssertionError("no round-start question in 50 games")


def test_no_roles_of_the_last_round_during_a_round_start_discard():
    v = _round_start_view()
    assert v["taken"]                       # the state still holds them...
    header = Text(v["options"]).table(v)
    assert "taken:" not in header and "Roles left" not in header     # ...the screen does not show them
    assert "Start of the round" in header
