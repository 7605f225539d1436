"""The renderer is given views only: it shows your cards, and no card kind the view does not show.
San Juan's views, on purpose: the test knows where its cards lie in a view."""
import copy
import io
import json

import pytest

from bots.random_bot import RandomBot
from client.render import Renderer, how_to_answer, use_colour
from games import sanjuan
from protocol.fairness import local_streams

NAMES = ["Ana", "Bo", "Cy", "Di"]


def card_keys(view: dict) -> dict[int, str]:
    """Card id -> kind key, for every card a San Juan view shows."""
    keys = {}
    for p in view["players"]:
        keys.update((c, key) for c, key, _ in p["city"])
        keys.update((c, key) for c, key in p["covered"])
    you = view.get("you") or {}
    for pile in ("hand", "drawn", "chapel", "bank"):
        keys.update((c, key) for c, key in you.get(pile, ()))
    if view.get("cathedral") is not None:
        card, key = view["cathedral"]
        keys[card] = key
    return keys


def sampled_views(options: dict, seed: str, every: int = 3) -> list[dict]:
    """Views of the seat to act, every few decisions of a bots-only game, plus the final one."""
    rng = local_streams(seed)
    state = sanjuan.setup(NAMES, options, rng)
    bots = [RandomBot(f"{seed}/{seat}") for seat in range(len(NAMES))]
    views, n = [], 0
    while sanjuan.to_act(state):
        seat = sanjuan.to_act(state)[0]
        v = sanjuan.view(state, seat)
        if n % every == 0:
            views.append(v)
        sanjuan.apply(state, seat, bots[seat].choose(v), rng)
        n += 1
    views.append(sanjuan.view(state, 0))
    return views


@pytest.fixture(scope="module", params=[{}, {"expansion": True}, {"expansion": True, "setup_variant": True}])
def views(request):
    options = sanjuan.INFO.check_options(request.param)
    return sampled_views(options, "render"), sanjuan.catalog(options["expansion"]), options


def test_render_shows_your_hand_with_cost_and_vp(views):
    vs, catalog, options = views
    r = Renderer("sanjuan", options)
    for v in vs:
        text = r.view(v)
        for _, key in v["you"]["hand"]:
            k = catalog["cards"][key]
            assert f"{k['name']} (cost {k['cost']}, {k['vp']} VP)" in text


def test_render_names_no_kind_the_view_does_not_show(views):
    """Names repeat across copies, so "no hidden card" is checked by kind: every card name on
    screen must be the kind of some card in the view (hand, drawn, cities, piles, cathedral)."""
    vs, catalog, options = views
    r = Renderer("sanjuan", options)
    for v in vs:
        text = r.view(v)
        shown = set(card_keys(v).values())
        for key, k in catalog["cards"].items():
            if key not in shown:
                assert k["name"] not in text, (k["name"], v["prompt"])


def test_render_depends_on_the_view_alone(views):
    """A view that went through JSON (as over a network) renders the same, and the labels follow
    the view: relabel a hand card in the view and the screen follows."""
    vs, catalog, options = views
    r = Renderer("sanjuan", options)
    for v in vs:
        assert r.view(json.loads(json.dumps(v))) == r.view(v)
    v = copy.deepcopy(next(v for v in vs if v["you"]["hand"]))
    v["you"]["hand"][0][1] = "smithy"
    assert "Smithy (cost 1, 1 VP)" in r.view(v)


def test_prompt_is_numbered_with_the_engines_labels_and_help(views):
    vs, catalog, options = views
    r = Renderer("sanjuan", options)
    for v in vs:
        p = v["prompt"]
        if p is None:
            continue
        text = r.prompt(v)
        assert p["text"] in text and how_to_answer(p["min"], p["max"]) in text
        help_text = r.help(v)
        for i, (value, label, explained) in enumerate(zip(p["options"], p["labels"], p["help"]), 1):
            assert f"{i:>2}. {label}" in text
            assert explained in help_text
            if isinstance(value, int):
                k = catalog["cards"][card_keys(v)[value]]
                assert k["name"] in label and explained == k["text"]
            else:
                assert value.capitalize() in label


def test_spectator_view_renders():
    rng = local_streams("spectator")
    state = sanjuan.setup(NAMES[:3], {}, rng)
    seat = sanjuan.to_act(state)[0]
    sanjuan.apply(state, seat, RandomBot(seat).choose(sanjuan.view(state, seat)), rng)
    v = sanjuan.view(state, None)
    text = Renderer("sanjuan", v["options"]).view(v)
    assert "Cities" in text and "Your hand" not in text
    for name in NAMES[:3]:
        assert name in text
    assert card_keys(v) == {c: "indigo_plant" for p in v["players"] for c, _, _ in p["city"]}


def test_result_table(views):
    vs, _, options = views
    final = vs[-1]
    assert final["over"]
    text = Renderer("sanjuan", options).result(final["result"], NAMES)
    lines = text.splitlines()
    assert all(n in lines[0] for n in NAMES)
    totals = next(line for line in lines if line.startswith("total"))
    assert totals.split()[1:] == [str(sc["total"]) for sc in final["result"]["scores"]]
    won = [NAMES[i] for i in final["result"]["winners"]]
    assert all(w in lines[-1] for w in won) and "after" in lines[-1]


def test_colour_only_when_asked(views, monkeypatch):
    vs, _, options = views
    assert "\x1b[" not in Renderer("sanjuan", options).view(vs[0])
    assert "\x1b[" in Renderer("sanjuan", options, colour=True).view(vs[0])

    class Tty(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty()) and not use_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())


def test_cards_under_chapel_bank_and_harbor_are_counted_for_everyone():
    """The counts are public (the log tells every placement); the harbor's cards nobody sees."""
    from tests.games.sanjuan.scenario import make
    s, _ = make([{"city": ["chapel", "harbor"], "chapel": ["tower", "hero"], "harbor": ["statue"]}, {}],
                expansion=True)
    for seat in (None, 0, 1):
        text = Renderer("sanjuan", {"expansion": True, "setup_variant": False}).view(sanjuan.view(s, seat))
        assert "2 under the chapel, 1 under the harbor" in text
        assert "Statue" not in text


def test_every_city_shows_its_running_score_from_the_engine():
    """The score if the game ended now: printed VP plus the cards under chapel and harbor, for
    every seat's viewer and a spectator alike, the same number as the engine's final scoring."""
    from tests.games.sanjuan.scenario import make
    s, _ = make([{"city": ["chapel", "harbor"], "chapel": ["tower", "hero"], "harbor": ["statue"]},
                 {"city": ["smithy"]}], expansion=True)
    catalog = sanjuan.catalog(True)["cards"]
    printed = catalog["chapel"]["vp"] + catalog["harbor"]["vp"]
    totals = [sc["total"] for sc in sanjuan.result(s)["scores"]]
    assert totals[0] == printed + 3          # two under the chapel, one under the harbor
    for seat in (None, 0, 1):
        v = sanjuan.view(s, seat)
        assert [p["score"]["total"] for p in v["players"]] == totals
        text = Renderer("sanjuan", {"expansion": True, "setup_variant": False}).view(v)
        lines = [line for line in text.splitlines() if "in hand" in line]
        assert f"score {totals[0]:>2} ·" in lines[0] and f"score {totals[1]:>2} ·" in lines[1]


def test_a_players_short_fingerprint_stands_beside_their_name_in_the_lobby_and_at_the_table():
    from client.render import describe_table, seats_line
    from protocol.signing import fingerprint

    ana, bo = b"\x01" * 32, b"\x02" * 32
    short = {k: ":".join(fingerprint(k).split(":")[:4]) for k in (ana, bo)}
    seats = [{"name": "Ana", "bot": None, "connected": True, "key": ana},
             {"name": "Bo", "bot": None, "connected": False, "key": bo},
             {"name": "Bot 1", "bot": "random", "connected": True}]
    assert seats_line(seats, me=0) == (f"Seats — Ana [{short[ana]}] (you): connected; Bo [{short[bo]}]: away; "
                                       "Bot 1: computer")
    line = describe_table({"id": "k7p2xq", "game": "sanjuan", "seats": seats, "status": "playing", "rated": True})
    assert line == f"k7p2xq  San Juan, 3 seats, 1 computer (random), full, rated, playing — Ana [{short[ana]}], Bo [{short[bo]}]"
    # a key of the wrong size is no key: the name alone
    assert seats_line([{"name": "Cy", "connected": True, "key": b"short"}]) == "Seats — Cy: connected"
