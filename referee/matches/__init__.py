"""A match's service, one module per concern (issue 28, "One room per concern").

:mod:`referee.service` composes them into :class:`referee.service.Referee`
and says where each concern lives. This package imports none of its modules
here: :mod:`referee.views` reads :mod:`referee.matches.state` alone, and the
other modules import the views.
"""
