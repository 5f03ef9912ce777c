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

from flask import Flask, Response, abort, g, render_template, request
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from referee.db import database_url, make_engine, migrate
from referee.service import Referee
from referee.web.common import check_text, not_text_at
from referee.web.ratelimit import init_limiter, retry_after, too_many_message

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
        # the number of reverse proxies in front of the app (0: none); with one or
        # more, the client's address and scheme come from X-Forwarded-For/-Proto
        TRUSTED_PROXIES=0,
        # the session cookie (CSRF tokens, notices) is not sent by other sites' forms;
        # behind TLS set REFEREE_SESSION_COOKIE_SECURE=true as well
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
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

    init_limiter(app, {"host": host.bp, "player": player.bp, "api": api.bp})
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies
        )

    _error_pages(app)

    @app.before_request
    def _plain_text_only() -> None:
        # a path that holds a control character names nothing (and PostgreSQL
        # cannot even look it up); a form field must be plain text to be stored
        if request.view_args and not_text_at(list(request.view_args.values())):
            abort(404, description="This address does not name anything here.")
        if request.method in ("POST", "PUT") and not request.path.startswith("/api/"):
            check_text(request.form.to_dict(flat=False), "the form")

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
        elif request.path.startswith("/api/") and (
            request.method != "GET" or "Authorization" in request.headers
        ):
            # answers carrying tokens, orders or a seat's hand are kept by no cache
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

    @app.errorhandler(RateLimitExceeded)
    def _rate_limited(exc: RateLimitExceeded) -> tuple[Any, int, dict[str, str]]:
        headers = {"Retry-After": str(retry_after(app))}
        message = too_many_message()
        if wants_json():
            return {"errors": [{"code": "auth/rate_limited", "message": message}]}, 429, headers
        page = render_template("error.html", code=429, title="Too many attempts", message=message)
        return page, 429, headers

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> tuple[Any, int, list[tuple[str, str]]]:
        code = exc.code or 500
        # keep the exception's own headers (Allow on a 405, Retry-After...), not its type
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]
        if wants_json():
            body = {"errors": [{"code": f"http/{code}", "message": exc.description}]}
            return body, code, headers
        return (
            render_template("error.html", code=code, title=exc.name, message=exc.description),
            code,
            headers,
        )

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
