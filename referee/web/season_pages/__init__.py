"""The season pages (issue 15), blueprint ``seasons``: creating a season, its
public standings, the host's page behind the season's host link and each
player's page behind their season link.

Every page is rendered from :func:`referee.seasons.views.season_view` (the one
gate of what a viewer may see); the episode's next step is read from the
service (:class:`referee.seasons.service.Seasons`). Every action is a CSRF-protected
POST, then a redirect (POST/redirect/GET); a refusal shows the page again with
every problem. Secret links are shown once, to the browser that made them, kept
in its signed session for an hour (:func:`referee.web.pages.kept_in_session`):
the season's links after creating it. The host page always links each match
made from the season to its host dashboard (issue 23: a host who lost the link
could never open the next round): those links are derived from the season
host link's digest (:func:`referee.seasons.links.derived_host_token`), like the
players' seat links from theirs. A player's new season link, which the host
asks for, is shown once by the answer to that POST alone (``no-store``), not kept.

One module per concern (issue 28); each imports the blueprint and what the
pages share from :mod:`~referee.web.season_pages.common`, never from this
package, which imports the route modules so their routes register:

- :mod:`~referee.web.season_pages.common`: the blueprint ``bp``, its constants
  and the helpers that read a season link, a season and a form;
- :mod:`~referee.web.season_pages.new`: creating a season, its links page and
  the public standings;
- :mod:`~referee.web.season_pages.host`: the host's page and its steps, with
  :mod:`~referee.web.season_pages.match_form`, its Main and Death Match form;
- :mod:`~referee.web.season_pages.player`: a player's page and their steps.
"""

from referee.web.season_pages import host, new, player
from referee.web.season_pages.common import bp

__all__ = ["bp", "host", "new", "player"]
