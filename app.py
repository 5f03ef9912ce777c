"""WSGI entry point: ``gunicorn app:app`` or ``flask --app app run``.

``referee serve`` is the usual way to start the server; this module exists for
WSGI servers. Configuration comes from REFEREE_* environment variables (for
example REFEREE_DATABASE_URL).
"""

from referee.web import create_app

app = create_app()
