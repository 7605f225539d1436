"""The server's log on stderr: text lines for a person, or JSON lines (`serve --log-format json`)
for a log collector.

A JSON line is one object: `time` (UTC, ISO 8601, milliseconds), `level`, `logger`, `message`
(the text line's message, formatted), then the structured fields the server gives where it logs
about a table or an address (`extra=` in its log calls: `table`, `status`, `frozen`, `address`,
`url`, ...), and `exception` (the traceback, as text) when there is one.
"""
from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone

# The attributes every LogRecord has; anything else on a record was given as a structured field.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
               "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        out.update((k, v) for k, v in vars(record).items() if k not in _STANDARD and k not in out)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def setup(log_format: str) -> None:
    """Log INFO and up to stderr in this format ("text" or "json"); websockets' own chatter
    (every connection and handshake) only from WARNING."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if log_format == "json"
                         else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("websockets").setLevel(logging.WARNING)
