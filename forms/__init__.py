"""Flask-WTF forms of the web pages (CSRF-protected, keep what people typed).

The forms only carry input: every rule is checked by the service layer
(:class:`referee.service.Referee`), whose problems the pages show next to the
field each concerns. So the fields here are deliberately lenient (numbers are
read as text) and have no validators of their own beyond the CSRF token.
"""

from forms.host import ActionForm, DeadlineForm, OpenRoundForm, ReissueForm
from forms.match import CreateMatchForm, PlayerForm
from forms.orders import DraftForm, ListField, choices, mapping_form, rafting_form

__all__ = [
    "ActionForm",
    "CreateMatchForm",
    "DeadlineForm",
    "DraftForm",
    "ListField",
    "OpenRoundForm",
    "PlayerForm",
    "ReissueForm",
    "choices",
    "mapping_form",
    "rafting_form",
]
