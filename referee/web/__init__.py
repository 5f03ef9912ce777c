"""The Flask application: :func:`create_app` and one blueprint per audience.

- ``public``: the home page, creating a match, a match's public page and its
  forum post;
- ``host``: the host's dashboard and actions behind the private host link;
- ``player``: a seat's page and order forms behind its private link;
- ``pictures``: the public map and results pictures (SVG and PNG) for forums;
- ``api``: the JSON API of API.md.

Every blueprint is thin: it reads input, calls :class:`referee.service.Referee`
and renders :func:`referee.views.view_for` for the viewer.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, render_template, request
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException

from referee.db import database_url, make_engine, migrate
from referee.service import Referee

ROOT = Path(__file__).resolve().parents[2]
csrf = CSRFProtect()


def _secret_key(instance: Path) -> str:
    """A stable secret for sessions and CSRF: REFEREE_SECRET_KEY, or one kept in
    the instance folder (every process on one machine shares it)."""
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key)
    return path.read_text().strip()


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(
        __name__,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
        instance_path=str(ROOT / "instance"),
    )
    app.config.from_mapping(
        DATABASE_URL=database_url(),
        AUTO_MIGRATE=True,
        MAX_CONTENT_LENGTH=512 * 1024,
        WTF_CSRF_TIME_LIMIT=None,
        ADMIN_KEY=None,
    )
    app.config.from_prefixed_env("REFEREE")
    if config:
        app.config.update(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))

    engine = make_engine(app.config["DATABASE_URL"])
    if app.config["AUTO_MIGRATE"]:
        migrate(engine)
    app.extensions["referee"] = Referee(engine)

    csrf.init_app(app)

    from referee.web import api, host, pictures, player, public

    app.register_blueprint(public.bp)
    app.register_blueprint(host.bp)
    app.register_blueprint(player.bp)
    app.register_blueprint(pictures.bp)
    app.register_blueprint(api.bp)
    csrf.exempt(api.bp)

    _error_pages(app)

    @app.after_request
    def _headers(response: Response) -> Response:
        # secret links live in URLs: never send them to other sites as a Referer
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "frame-ancestors 'none'; form-action 'self'",
        )
        if request.path.startswith(("/host/", "/play/")):
            response.headers["Cache-Control"] = "no-store"
        return response

    return app


def _error_pages(app: Flask) -> None:
    def wants_json() -> bool:
        return request.path.startswith("/api/")

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError) -> tuple[Any, int]:
        if wants_json():
            return {"errors": [{"code": "auth/csrf", "message": exc.description}]}, 400
        return render_template(
            "error.html",
            code=400,
            title="The form expired",
            message="This form could not be checked (its security token is missing or old). "
            "Go back, reload the page and send it again; nothing was changed.",
        ), 400

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[Any, int]:
        code = exc.code or 500
        if wants_json():
            return {"errors": [{"code": f"http/{code}", "message": exc.description}]}, code
        return render_template(
            "error.html", code=code, title=exc.name, message=exc.description
        ), code

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[Any, int]:
        app.logger.exception("unexpected error", exc_info=exc)
        message = "Something went wrong on the server. Nothing you had already sent was lost."
        if wants_json():
            return {"errors": [{"code": "server/error", "message": message}]}, 500
        return render_template("error.html", code=500, title="Server error", message=message), 500


def referee() -> Referee:
    """The service of the current app."""
    from flask import current_app

    svc: Referee = current_app.extensions["referee"]
    return svc


__all__ = ["create_app", "g", "referee"]
