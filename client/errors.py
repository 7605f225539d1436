"""The exception that ends a client's run, shared by every layer of the client (the table
state raises it as well as the connection), so it lives below them all."""


class ClientError(Exception):
    """Something that ends this client's run; str() is the sentence to show."""
