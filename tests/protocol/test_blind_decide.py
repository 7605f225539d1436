"""A person may decide at any moment of a blind match: between any two entries their client
either offers no question, or the move they pick is made (or refused by the rules), never an
error of the client's own bookkeeping."""
import pytest

from games.choice import pick_uniform
from games.errors import IllegalAction
from protocol.messages import ProtocolError

from .blind_match import Match


class Probing(Match):
    """A match whose clients are asked, after every single entry they receive, to make the move
    their person would pick now (the message is made and thrown away: the match goes on as the
    harness plays it)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tried = 0
        self.mid_move_entries = 0

    def deliver(self, entries) -> None:
        for e in entries:
            super().deliver([e])
            for client in self.clients.values():
                if client.reader is not None and client.reader.move_under_way:
                    self.mid_move_entries += 1
                    assert client.prompt() is None, "a question while a move is under way in the log"
                prompt = client.prompt()
                if prompt is not None:
                    try:
                        client.move(pick_uniform(prompt["options"], prompt["min"], prompt["max"], self.rnd))
                    except (ProtocolError, IllegalAction):
                        pass
                    self.tried += 1


# Seeds whose matches reshuffle a pile for one seat's move while another seat has a question
# (a client that offered it then tried the move on a state whose pile was shuffled with other cards).
@pytest.mark.parametrize("game, seed", [("sanjuan", "decide/sanjuan/0"), ("puertorico", "decide/puertorico/0")])
def test_a_move_picked_between_any_two_entries_is_made_or_refused_by_the_rules(game, seed):
    m = Probing(game, 4, [0, 1, 2, 3], seed=seed)
    m.play()
    assert m.server.phase == "over"
    assert m.tried > 100, "the clients were hardly ever asked anything: nothing was tested"
    assert m.mid_move_entries > 0, "no move ever made the parties shuffle or open mid-way: nothing was tested"
    for client in m.clients.values():
        assert client.report is not None and client.report.ok, client.report and client.report.text()
