"""The one error a sender raises when a message did not go out.

The outbox (issue 14) needs exactly two things from a failed delivery: words
for the host ("the mail server refused the address: 550 no such user") and
whether trying again later could help. A permanent failure (a refused address,
a webhook that answered 404) is shown and given up on; a temporary one (a
timeout, a 4xx from a mail server, a webhook's 503) is retried with back-off.
"""

from __future__ import annotations


class DeliveryError(Exception):
    """A message was not delivered.

    ``message`` is in plain words for the host and never holds a password or a
    webhook URL's path (both are secrets); ``permanent`` is True when retrying
    cannot help.
    """

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.permanent = permanent

    def __repr__(self) -> str:
        return f"DeliveryError({self.message!r}, permanent={self.permanent})"
