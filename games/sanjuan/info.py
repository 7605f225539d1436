"""What San Juan is, for the registry: id, title, seats, rules version, table options."""
from games.contract import Info, Option

INFO = Info(
    id="sanjuan",
    title="San Juan",
    min_players=2,
    max_players=4,
    # Bump whenever an old match could replay differently (a rule, or the words of a public event,
    # which the record commits to): records name it.
    rules_version="sanjuan-2e/4",
    tiebreak="most cards in hand plus goods; still tied, the tied players share the win",
    offers_back=True,       # the build, from its second step (docs/development.md)
    options=(
        Option("expansion", False, 'add "The New Buildings"'),
        Option("setup_variant", False, "deal more starting cards and let everyone keep 4"),
    ),
)
