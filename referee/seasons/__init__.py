"""Seasons (issue 15): the elimination game around the matches, one module per
concern. Import from the modules; this package imports none of them (and
nothing of :mod:`referee.web`).

- :mod:`referee.seasons.service`: :class:`~referee.seasons.service.Seasons`,
  the service every change of a season goes through (its creation and ledger;
  the decisions where the issue leaves a choice), made of
  :mod:`~referee.seasons.steps` (reading, locking, one transaction per change),
  :mod:`~referee.seasons.links` (derived links, re-issued links) and
  :mod:`~referee.seasons.episodes` (Main and Death Matches, outcomes);
- :mod:`referee.seasons.state`: a season as stored and what the steps give back;
- :mod:`referee.seasons.rules`: the season's rules and roster, checked;
- :mod:`referee.seasons.signups`: the sign-up link's steps (issue 23, item 7);
- :mod:`referee.seasons.views`: what each viewer may see of a season;
- :mod:`referee.seasons.post`, :mod:`referee.seasons.picture` and
  :mod:`referee.seasons.ledger_files`: the season's forum post, garnet picture
  (SVG) and ledger (CSV, JSON), each from a season view;
- :mod:`referee.seasons.chain`: the ledger's hash chain (issue 27, item 6), pure.

The web layer is :mod:`referee.web`'s ``season_*`` modules and ``signups``.
"""
