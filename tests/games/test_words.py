"""The words games write: "an" before a vowel (one helper, games/text.py), in every event,
question and explanation of random games of every game; a reshuffle (San Juan's discard pile into
the supply, Puerto Rico's discarded plantations into the stack) told to everyone where it happens,
by the count alone."""
from __future__ import annotations

import re

import pytest

import games
from games.events import Events
from games.puertorico import plantations
from games.puertorico.components import GOODS
from games.sanjuan import rules as sanjuan_rules
from games.sanjuan.cards import NAME
from games.text import with_article
from protocol.fairness import local_streams
from tests.conformance.test_engine import random_game
from tests.games.puertorico.scenario import make

A_BEFORE_A_VOWEL = re.compile(r"\b[Aa]\s+[aeiouAEIOU]")


def test_the_article_follows_the_first_sound():
    assert with_article("indigo plant") == "an indigo plant"
    assert with_article("Office building") == "an Office building"
    assert with_article("sugar mill") == "a sugar mill"
    assert with_article("quarry") == "a quarry"


def _words(game, players: int, options: dict, seed: str) -> list[str]:
    """Every event's words and every question's (text, labels, help) of a random game, and what
    the game's Text says of each name at its end (`? name`) and of its board."""
    asked: list[str] = []

    def questions(s, _n):
        for seat in game.to_act(s):
            p = game.view(s, seat)["prompt"]
            asked.extend([p["text"], *p["labels"], *(h for h in p["help"] if h)])
    state, _, events = random_game(game, players, options, seed, check=questions)
    view = game.view(state, 0)
    text = game.Text(options, lambda words, _style: words)
    told = [text.board(view, 100)]
    if hasattr(text, "explain"):       # optional (games/contract.Text)
        told += [text.explain(view, name) or "" for name in text.names(view)]
    return [e["text"] for e in events] + asked + told


def test_no_game_writes_a_before_a_vowel():
    every = []
    for game in games.GAMES.values():
        words = []
        for players in range(game.INFO.min_players, game.INFO.max_players + 1):
            for options in game.INFO.variants():
                words += _words(game, players, options, f"words/{players}")
        wrong = sorted({w for w in words if A_BEFORE_A_VOWEL.search(w)})
        assert not wrong, (game.INFO.id, wrong[:5])
        every += words
    # The check saw the words it is about: "an" before a vowel is written somewhere.
    assert any(re.search(r"\ban [aeiou]", w) for w in every)


def test_the_reshuffle_is_told_to_everyone_by_its_count():
    """The supply runs out: the discard pile is shuffled into a new one, and the log says so
    where it happens, naming how many cards and none of them."""
    rng = local_streams("reshuffle")
    s = sanjuan_rules.setup(["Ana", "Bo"], {"expansion": False, "setup_variant": False}, rng)
    s.discard, s.deck = s.deck[:5], []
    ev = Events()
    card = sanjuan_rules._draw(s, rng, ev)
    assert s.reshuffles == 1 and len(s.deck) == 4 and card is not None
    assert [(e["type"], e["to"], e["text"]) for e in ev] == [
        ("reshuffle", None, "The supply is empty: the discard pile's 5 cards are shuffled into a new supply.")]
    assert sanjuan_rules._draw(s, rng, ev) is not None and len(ev) == 1     # no reshuffle: no word


def test_the_plantation_stack_reshuffle_is_told_to_everyone_by_its_count():
    """Puerto Rico's face-down stack runs out: the discarded plantations become a new one, and the
    log says how many, naming no kind (the discard pile is on every board; the new order is not)."""
    s, rng = make([{}, {}, {}], stack=[], discard=["coffee"])
    ev = Events()
    assert plantations.draw(s, rng, ev) is not None and s.reshuffles == 1 and s.stack == s.discard == []
    assert [(e["type"], e["to"], e["text"]) for e in ev] == [
        ("reshuffle", None, "The plantation stack is empty: the 1 discarded plantation is shuffled into a new stack.")]
    assert plantations.draw(s, rng, ev) is None and s.reshuffles == 1 and len(ev) == 1    # nothing left: no word


# game: (players, a seed whose random game reshuffles more than once, the words, what they must not name)
RESHUFFLES = {
    "sanjuan": (4, "reshuffle/0", r"The supply is empty: the discard pile's \d+ cards? are shuffled into a new "
                r"supply\.", NAME),
    "puertorico": (4, "reshuffle/1", r"The plantation stack is empty: the \d+ discarded plantations? (are|is) "
                   r"shuffled into a new stack\.", GOODS),
}


@pytest.mark.parametrize("game_id", RESHUFFLES)
def test_a_seeded_game_logs_each_reshuffle_alike_every_time(game_id):
    players, seed, words, names = RESHUFFLES[game_id]
    game = games.get(game_id)
    options = game.INFO.check_options({})
    state, _, events = random_game(game, players, options, seed)
    told = [e for e in events if e["type"] == "reshuffle"]
    assert state.reshuffles > 1 and len(told) == state.reshuffles
    assert all(e["to"] is None for e in told)
    names = {name.lower() for name in names}
    for e in told:
        assert re.fullmatch(words, e["text"]), e["text"]
        assert not any(name in e["text"].lower() for name in names)
    again = [e["text"] for e in random_game(game, players, options, seed)[2] if e["type"] == "reshuffle"]
    assert again == [e["text"] for e in told]
