"""Flask-WTF forms of the web pages (CSRF-protected, keep what people typed).

The forms only carry input: every rule is checked by the service layer
(:class:`referee.service.Referee`), whose problems the pages show next to the
field each concerns. So the fields here are deliberately lenient (numbers are
read as text) and have no validators of their own beyond the CSRF token.

Everything here serves any game: a game's own forms (order forms, set-up
fields) are in its package, e.g. ``referee/rulesets/<game>/forms.py``.
"""

from forms.host import ActionForm, DeadlineForm, OpenRoundForm, ReissueForm, ScheduleForm
from forms.match import CreateMatchForm, PlayerForm, create_match_form
from forms.notify import EmailForm, LinkRequestForm
from forms.orders import JsonOrderForm, OrderBaseForm, choices

__all__ = [
    "ActionForm",
    "CreateMatchForm",
    "DeadlineForm",
    "EmailForm",
    "JsonOrderForm",
    "LinkRequestForm",
    "OpenRoundForm",
    "OrderBaseForm",
    "PlayerForm",
    "ReissueForm",
    "ScheduleForm",
    "choices",
    "create_match_form",
]
