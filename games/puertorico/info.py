"""What Puerto Rico is, for the registry: id, title, seats, rules version, table options."""
from games.contract import Info

INFO = Info(
    id="puertorico",
    title="Puerto Rico",
    min_players=2,
    max_players=5,
    # Bump whenever an old match could replay differently (a rule, or the words of a public event,
    # which the record commits to): records name it.
    rules_version="puertorico-1/2",
    tiebreak="most doubloons plus goods; still tied, the tied players share the win",
    offers_back=True,       # the placement of colonists and the storage (docs/development.md)
    # No table options: two players always play the official two-player game (D17), the
    # edition is the seed's (D16).
)
