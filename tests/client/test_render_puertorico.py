"""Puerto Rico on a 100×40 terminal: every line within 100 columns, a 4-player board with its
question on one screen, the round, the roles and the question in sight however tall the board,
the building prices the engine charges, questions in the game's words, and `? name` for
anything on the board (San Juan's cards too)."""
import re
import statistics

import pytest

from bots.random_bot import RandomBot
from client.render import Renderer
from games import puertorico, sanjuan
from games.puertorico.board import build_cost
from games.puertorico.components import BUILDINGS, BY_KEY
from protocol.fairness import local_streams
from tests.games.puertorico.scenario import answer, make, play

from client.render import ROWS, TERMINAL_LINES, WIDTH
LOG_LINES = 3            # the last events of the game log, above the board
NAMES = ["Player", "Bot 2", "Bot 3", "Bot 4", "Bot 5"]   # the names `governor play` gives


def sampled_views(players: int, seed: str, every: int = 1) -> list[dict]:
    """Views of the seat to act through a random game, every few decisions, with a spectator's
    view beside each and the final views."""
    rng = local_streams(seed)
    state = puertorico.setup(NAMES[:players], {}, rng)
    bots = [RandomBot(f"{seed}/{seat}") for seat in range(players)]
    views, n = [], 0
    while puertorico.to_act(state):
        seat = puertorico.to_act(state)[0]
        v = puertorico.view(state, seat)
        if n % every == 0:
            views += [v, puertorico.view(state, None)]
        puertorico.apply(state, seat, bots[seat].choose(v), rng)
        n += 1
    return views + [puertorico.view(state, 0), puertorico.view(state, None)]


@pytest.fixture(scope="module")
def games_by_players():
    return {n: sampled_views(n, f"screen/{n}", every=1 if n == 4 else 5) for n in (2, 3, 4, 5)}


def screen(v: dict) -> list[str]:
    return Renderer("puertorico", v["options"]).view(v).splitlines()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_line_fits_100_columns(games_by_players, players):
    r = Renderer("puertorico", {})
    views = games_by_players[players]
    for i, v in enumerate(views):
        lines = screen(v)
        if v["over"]:
            lines += r.result(v["result"], [p["name"] for p in v["players"]]).splitlines()
        if i % 20 == 0 or v["over"]:     # what `? name` says changes slowly: a sample will do
            for name in r.text.names(v):
                lines += r.explain(v, name).splitlines()
        wide = [line for line in lines if len(line) > WIDTH]
        assert not wide, wide[0]


def test_colour_takes_no_columns(games_by_players):
    r = Renderer("puertorico", {}, colour=True)
    for v in games_by_players[4][::10]:
        text = r.view(v)
        assert "\x1b[" in text
        assert max(len(re.sub("\x1b\\[[0-9;]*m", "", line)) for line in text.splitlines()) <= WIDTH


def test_a_four_player_board_and_its_question_fit_40_rows(games_by_players):
    """Through a whole 4-player game, the board with any question of up to 8 options fits 40
    rows with the terminal's own lines, and typically leaves room for 3 lines of the log. (A
    long build question late in the game can take more; the two-column list keeps it short.)"""
    rows = [len(screen(v)) + TERMINAL_LINES for v in games_by_players[4]
            if v["prompt"] and len(v["prompt"]["options"]) <= 8]
    assert max(rows) <= ROWS
    assert statistics.median(rows) + LOG_LINES <= ROWS


def heuristic_views(players: int, seed: str) -> list[dict]:
    """The views of every question of a game between heuristic players, whose cities grow
    bigger than random players' do: the tallest boards there are."""
    import bots
    rng = local_streams(seed)
    state = puertorico.setup(NAMES[:players], {}, rng)
    players_ = [bots.make("puertorico", "heuristic", seat) for seat in range(players)]
    views = []
    while puertorico.to_act(state):
        seat = puertorico.to_act(state)[0]
        views.append(puertorico.view(state, seat))
        puertorico.apply(state, seat, players_[seat].choose(views[-1]), rng)
    return views


@pytest.mark.parametrize("players", [4, 5])
def test_the_round_the_roles_and_the_question_stay_on_a_40_row_terminal(players):
    """However tall a board and its question are, the last 40 rows the plain mode prints hold
    the round, the roles and the whole question: when it does not fit, the board's head comes
    after the rest of the board, just above the question (the rest scrolls away first)."""
    r = Renderer("puertorico", {})
    taller = 0
    for v in heuristic_views(players, f"tall/{players}"):
        lines = screen(v)
        shown = "\n".join(lines[-(ROWS - TERMINAL_LINES):])
        assert "Puerto Rico · round" in shown and "Roles left" in shown
        assert r.prompt(v) in shown
        taller += len(lines) + TERMINAL_LINES > ROWS
    if players == 5:
        assert taller    # some screens were taller than the terminal, and were laid out so


def grid_price(text: str, name: str) -> int | None:
    """The price the building grid shows for a building: the number after its name in its cell."""
    m = re.search(rf"(?:^|│ ){re.escape(name)} +(\d+)", text, re.M)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize("builder", [False, True])
def test_the_price_shown_is_the_engines_after_your_quarries(builder):
    s, rng = make([{"island": {"quarry": (3, 2), "corn": (1, 1)}, "doubloons": 20}, {"island": {"quarry": (2, 2)}}, {}])
    if builder:
        play(s, rng, 0, "builder")
    r = Renderer("puertorico", {})
    for seat in (0, 1):
        text = r.board(puertorico.view(s, seat))
        p = s.players[seat]
        for b in BUILDINGS:
            shown = grid_price(text, b.name)
            assert shown == build_cost(p, b.index, builder and seat == 0), b.name
    assert grid_price(r.board(puertorico.view(s, None)), "City hall") == BUILDINGS[BY_KEY["city_hall"]].cost
    if builder:   # the builder's question offers the same prices
        v = puertorico.view(s, 0)
        for key, label in zip(v["prompt"]["options"], v["prompt"]["labels"]):
            price = build_cost(s.players[0], BY_KEY[key], True)
            assert label == f"Build the {BUILDINGS[BY_KEY[key]].name.lower()} for " + (
                "free" if price == 0 else f"{price} doubloon{'s' * (price != 1)}")
        assert "your price −1 builder" in r.board(v)


def labels(s, seat=None) -> tuple[str, list[str]]:
    seat = puertorico.to_act(s)[0] if seat is None else seat
    p = puertorico.prompt(s, seat)
    return p["text"], p["labels"]


def test_the_mayor_asks_how_many_colonists_with_the_range():
    s, rng = make([{"island": {"sugar": (2, 0), "corn": (1, 0)}, "city": {"small_market": 0}}, {}, {}],
                  colonist_ship=3, colonist_supply=0)
    play(s, rng, 0, "mayor")
    text, options = labels(s)
    # 1 colonist from the ship for 4 circles: corn first, 0 or 1.
    assert text == "Mayor: how many colonists on your corn plantations? 0–1 (you have 1 to place)"
    assert options == ["0 colonists  ○  (1 left to place)", "1 colonist  ●"]
    answer(s, rng, 0)
    text, options = labels(s)
    assert text == "Mayor: how many colonists on your sugar plantations? 0–1 (you have 1 to place)"
    assert options == ["0 colonists  ○○  (1 left to place)", "1 colonist  ●○"]


def test_the_captain_asks_which_ship_and_how_many_it_takes():
    s, rng = make([{"goods": {"corn": 5, "sugar": 2}, "city": {"wharf": 1}}, {}, {}],
                  ships=[(None, 0), (None, 0), (None, 0)])
    play(s, rng, 0, "captain")
    text, options = labels(s)
    assert text == "Captain: load one kind of goods onto a ship."
    assert "Load corn onto the 6-ship (takes 5 of your 5)" in options
    assert "Load sugar onto the 4-ship (takes 2 of your 2)" in options
    assert "Ship all 5 corn from your wharf (6 VP)" in options      # 5 barrels, +1 for the captain


def test_roles_and_buildings_read_like_the_game():
    s, rng = make([{"doubloons": 1}, {}, {}])
    s.roles["craftsman"] = 2
    play(s, rng, 0, "settler")
    while puertorico.prompt(s, puertorico.to_act(s)[0])["kind"] != "role":
        answer(s, rng)
    assert "Take the craftsman (+2 doubloons)" in labels(s)[1]
    s, rng = make([{"doubloons": 2}, {}, {}])
    play(s, rng, 0, "builder")
    text, options = labels(s)
    assert text == "Builder: build one building, or none. You have 2 doubloons."
    assert "Build the small market for free" in options and "Build the hacienda for 1 doubloon" in options


# ------------------------------------------------------------ `? name`

@pytest.fixture(scope="module")
def mid_game():
    views = sampled_views(4, "explain", every=50)
    return next(v for v in views[len(views) // 2:] if v["seat"] is not None)


def test_question_mark_a_building_tells_cost_vp_circles_column_and_effect(mid_game):
    r = Renderer("puertorico", {})
    for b in BUILDINGS:
        text = " ".join(r.explain(mid_game, b.name.lower()).split())
        assert text.startswith(f"{b.name}:")
        for fact in (f"column {b.column}", f"Cost {b.cost}", f"{b.vp} VP", f"{b.circles} circle", b.text):
            assert fact in text, (b.name, fact)
    # A prefix or any word of the name will do, in any case; several fits are named.
    assert r.explain(mid_game, "GUILD").startswith("Guild hall:")
    assert r.explain(mid_game, "market").startswith('"market" could be small market or large market')


def test_question_mark_plantations_goods_roles_and_the_score(mid_game):
    r = Renderer("puertorico", {})
    assert "coffee roaster" in r.explain(mid_game, "coffee plantation")
    assert "corn needs no building" in r.explain(mid_game, "corn")
    assert "quarr" in r.explain(mid_game, "quarry").lower()
    money = next(c["doubloons"] for c in mid_game["roles"] if c["card"] == "trader")
    trader = " ".join(r.explain(mid_game, "trader").split())
    assert trader.startswith("Trader: Everyone may sell")
    assert ("taken this round" in trader) or f"with {money} doubloon" in trader
    score = " ".join(r.explain(mid_game, "score").split())
    assert "All of it is public" in score
    for p in mid_game["players"]:
        assert f"{p['name']} {p['score']['total']} (" in score


def test_question_mark_any_san_juan_card_by_name():
    options = sanjuan.INFO.check_options({"expansion": True})
    rng = local_streams("explain")
    v = sanjuan.view(sanjuan.setup(NAMES[:3], options, rng), 0)
    r = Renderer("sanjuan", options)
    for key, card in sanjuan.catalog(True)["cards"].items():
        text = " ".join(r.explain(v, card["name"]).split())
        assert text.startswith(f"{card['name']}:")
        assert f"cost {card['cost']}, {card['vp']} VP" in text and card["text"] in text
    assert "Built by Player, Bot 2, Bot 3." in " ".join(r.explain(v, "indigo").split())
    assert r.explain(v, "councillor").startswith("Councillor: Everyone draws")


@pytest.mark.parametrize("game", ["puertorico", "sanjuan"])
def test_an_unknown_name_gets_a_sentence_on_how_to_ask(game, mid_game):
    if game == "puertorico":
        v = mid_game
    else:
        state = sanjuan.setup(NAMES[:2], sanjuan.INFO.check_options({}), local_streams("unknown"))
        v = sanjuan.view(state, sanjuan.to_act(state)[0])
    r = Renderer(game, v["options"])
    text = " ".join(r.explain(v, "zeppelin").split())
    assert text.startswith('Nothing here is called "zeppelin". Type ? alone for help on the options')
    assert "or ? and a name or its first letters" in text and r.text.names(v)[-1] in text
    # Plain `?` still explains the question's options, and mentions `? name`.
    assert "`?` and a name explains anything on the board" in r.help(v)
