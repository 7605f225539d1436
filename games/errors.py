"""The one error every rules engine raises for a decision it refuses."""


class IllegalAction(Exception):
    """An action the rules do not allow. The state is left exactly as it was.

    `code` is a short stable identifier for programs (the wire's reject code);
    `message` is a sentence for the player.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
