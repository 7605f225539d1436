"""The exception that ends a client's run, shared by every layer of the client (the table
state raises it as well as the connection), so it lives below them all."""
from games.errors import Closed


class ClientError(Closed):
    """Something that ends this client's run: `message` (and str()) is the sentence to show."""
