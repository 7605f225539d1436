"""The trader phase (docs/rules.md, 'Puerto Rico'): each player from the trader may sell one
barrel while the trading house has room; a full house is emptied at the end."""
from __future__ import annotations

from games.events import say
from games.text import plural, with_article

from .board import occupied, sale_price
from .components import GOODS, OFFICE, TRADING_HOUSE_SPACES
from .state import State


def start(s: State, rng, ev: list | None) -> None:
    s.turn = 0
    _turn(s, ev)


def sell_options(s: State, seat: int) -> tuple[str, ...]:
    """Goods the seat holds that the house buys: a kind not there yet, any kind with an occupied
    office."""
    p = s.players[seat]
    return tuple([GOODS[g] for g in sellable(p.goods, s.house, occupied(p, OFFICE))])


def sellable(goods, house, office: bool) -> list[int]:
    """The goods a player holding `goods` (barrels by good) may sell to a trading house holding
    `house` (goods): none once it is full; a kind not there yet, any kind with an occupied
    office."""
    if len(house) >= TRADING_HOUSE_SPACES:
        return []
    out = []
    for g in range(len(GOODS)):
        if goods[g] and (office or g not in house):
            out.append(g)
    return out


def _turn(s: State, ev: list | None) -> None:
    while s.turn < len(s.order) and len(s.house) < TRADING_HOUSE_SPACES:
        seat = s.order[s.turn]
        options = sell_options(s, seat)
        if options:
            s.pending = (seat, "sell", options, 0, 1)
            return
        s.turn += 1
    if len(s.house) == TRADING_HOUSE_SPACES:
        for g in s.house:
            s.barrels[g] += 1
        s.house = []
        if ev is not None:
            say(ev, "trade", "The trading house is full and is emptied.")


def on_sell(s: State, seat: int, picks: tuple, rng, ev: list | None) -> None:
    if picks:
        p = s.players[seat]
        good = GOODS.index(picks[0])
        price = sale_price(p, good, seat == s.chooser)
        p.goods[good] -= 1
        p.doubloons += price
        s.house.append(good)
        if ev is not None:
            say(ev, "trade", lambda who=s.names[seat], good=picks[0], price=price:
                f"{who} sells {with_article(good)} for {plural(price, 'doubloon')}.")
    else:
        if ev is not None:
            say(ev, "trade", lambda who=s.names[seat]: f"{who} sells nothing.")
    s.turn += 1
    _turn(s, ev)
