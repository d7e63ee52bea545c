"""Secrets out of log records: API keys that an API only takes in the query string.

OpenAlex reads its key from the `api_key` query parameter, and httpx logs every request
URL (logger `httpx`, level INFO), so anyone logging at INFO or DEBUG would write the key
to the run's log, the captured output and Dagster's event storage. `redact_httpx_logs`
puts a filter on httpx's logger that replaces the value of such parameters with `***`
before any handler sees the record. Keys sent in headers (GitHub's token) are never
logged by httpx and need nothing here.
"""

from __future__ import annotations

import logging
import re

#: Query parameters whose value is a secret.
SECRET_PARAMETERS = ("api_key",)
_SECRET_VALUE = re.compile(rf"(?<=[?&](?:{'|'.join(SECRET_PARAMETERS)})=)[^&#\s\"'>]+")
#: The loggers that print request URLs: httpx (its own), httpcore (its DEBUG traces).
HTTP_LOGGERS = ("httpx", "httpcore")


def redact(text: str) -> str:
    """`text` with the value of every secret query parameter replaced by `***`."""
    return _SECRET_VALUE.sub("***", text)


class RedactSecrets(logging.Filter):
    """Rewrites a record whose message holds a secret query parameter (the record is kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def redact_httpx_logs() -> None:
    """Installs RedactSecrets on the HTTP client loggers, once per process."""
    for name in HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactSecrets) for existing in logger.filters):
            logger.addFilter(RedactSecrets())
