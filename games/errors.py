"""The errors Governor raises on purpose, in one hierarchy that every package shares (games
imports nothing of ours, so everyone can import this).

Every one carries `code`, a short stable name for programs (a reject's code on the wire), and
`message`, a sentence for people (and str()); every constructor takes them in that order. Two kinds:

- `Refused`: refused, and nothing changed. The move, message, frame, delta or file is turned
  down; the game, the table, the connection and the files are exactly as they were, and the caller
  goes on (answers with a reject, asks again, shows the sentence).
- `Closed`: this connection, or this client's run, is over. The caller stops talking to the other
  end and says why.
"""


class GovernorError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class Refused(GovernorError):
    """Refused, and nothing changed: the caller goes on."""


class Closed(GovernorError):
    """This connection (or run) is over: the caller stops and says why."""


class IllegalAction(Refused):
    """An action the rules do not allow. The state is left exactly as it was."""
