"""Web pages for the public: the home page, creating a match, a match's public
page and its forum post.

Every page about a match is rendered from :func:`referee.views.view_for`, never
from stored rows. The helpers the pages share are in :mod:`referee.web.pages`
(a game's own in its web module, see :mod:`referee.web.game`); a refusal that
is not shown on a form is answered by the app's one RuleError handler.

One module per concern, all on one blueprint, ``public``
(:mod:`~referee.web.public.common`, with what the others share):
:mod:`~referee.web.public.create` (creating a match and its new links, kept
for the browser that created it), :mod:`~referee.web.public.links` (lost links
and unsubscribing, issue 14) and :mod:`~referee.web.public.pages` (the home
page, a match's pages, a game's rules). Importing this package registers
their routes.
"""

from __future__ import annotations

from referee.web.public import create, links, pages
from referee.web.public.common import bp

__all__ = ["bp", "create", "links", "pages"]
