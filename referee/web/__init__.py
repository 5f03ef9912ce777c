"""The Flask application: :func:`create_app` and one blueprint per audience.

- ``public``: the home page, creating a match, a match's public page and its
  forum post;
- ``host``: the host's dashboard and actions behind the private host link;
- ``player``: a seat's page and order forms behind its private link;
- ``pictures``: the public pictures each game draws (SVG and PNG) for forums;
- ``api``: the JSON API of the shared API contract (in docs/contracts/).

Every blueprint is thin: it reads input, calls :class:`referee.service.Referee`
and renders :func:`referee.views.view_for` for the viewer.
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import stat
import sys
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, g, render_template, request
from flask_compress import Compress
from flask_limiter.errors import RateLimitExceeded
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.security import safe_join

from referee.db import OLD_INSTANCE, data_dir, database_url, make_engine, migrate
from referee.errors import RuleError
from referee.notify.config import NotifyConfig
from referee.resources import bundled_dir
from referee.seasons.service import Seasons
from referee.service import Referee
from referee.web.common import not_text_at
from referee.web.ratelimit import SCOPE, init_limiter, retry_after, too_many_message

csrf = CSRFProtect()
compress = Compress()

# what is compressed (br when the client takes it, else gzip): pages, JSON, posts,
# SVG pictures, style sheets and scripts; never PNG (already compressed). See
# SECURITY.md ("Compression and secrets") for why compressing secret pages is safe.
COMPRESSED_TYPES = [
    "text/html",
    "text/css",
    "text/plain",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]
# a fingerprinted static file (``?v=<digest of its content>``) may be kept a year
IMMUTABLE = "public, max-age=31536000, immutable"


def _secret_key(instance: Path) -> str:
    """A stable secret for sessions and CSRF: REFEREE_SECRET_KEY, or one kept in
    the instance folder (every process on one machine shares it)."""
    path = instance / "secret_key"
    if not path.exists():
        old = OLD_INSTANCE / "secret_key"
        if old.is_file() and old.resolve() != path.resolve():
            # earlier versions kept it in ./instance: links derived with it (a
            # season's players') change with the key, so say where it went
            print(
                f"note: {old.resolve()} (the secret key of earlier versions) is not used; "
                f"a new one is made in {path}. Season links sent with the old key keep "
                f"working only if you move it there (before starting the server) or set "
                f"REFEREE_SECRET_KEY to its content.",
                file=sys.stderr,
            )
        instance.mkdir(parents=True, exist_ok=True)
        try:
            # readable by the server's own user only (it signs every session), and
            # created atomically: two processes starting at once keep one key
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32))
    for _ in range(100):  # another process may be writing it this very moment
        key = path.read_text().strip()
        if key:
            return key
        time.sleep(0.01)
    raise RuntimeError(f"{path} is empty: delete it, or set REFEREE_SECRET_KEY")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(
        __name__,
        template_folder=str(bundled_dir("templates")),
        static_folder=str(bundled_dir("static")),
        # beside the default database: the user's data folder (referee.db.data_dir),
        # the same wherever the server starts, never the installed package's (a
        # wheel's is read-only); it keeps the secret key when none is configured
        instance_path=str(data_dir()),
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
        # the scheme and host of absolute links (secret links, forum posts), e.g.
        # https://referee.example.org; unset: taken from the request's Host header
        PUBLIC_BASE_URL=None,
        # Flask-Compress: br at a cheap level, gzip otherwise, also for static files
        # (sent as streams); bodies under 500 bytes stay as they are
        COMPRESS_MIMETYPES=COMPRESSED_TYPES,
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_ALGORITHM_STREAMING=["br", "gzip"],
        COMPRESS_BR_LEVEL=4,
        COMPRESS_LEVEL=6,
        COMPRESS_MIN_SIZE=500,
    )
    app.config.from_prefixed_env("REFEREE")
    if config:
        app.config.update(config)
    # REFEREE_PUBLIC_URL (issue 14's name) and REFEREE_PUBLIC_BASE_URL are one setting
    if app.config.get("PUBLIC_URL") and not app.config.get("PUBLIC_BASE_URL"):
        app.config["PUBLIC_BASE_URL"] = app.config["PUBLIC_URL"]
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))

    engine = make_engine(app.config["DATABASE_URL"])
    if app.config["AUTO_MIGRATE"]:
        migrate(engine)
    app.extensions["referee"] = Referee(engine, notify=NotifyConfig.from_mapping(app.config))
    # seasons derive their players' match links with the app's secret key (referee.seasons.links)
    app.extensions["seasons"] = Seasons(
        app.extensions["referee"], str(app.config["SECRET_KEY"]).encode("utf-8")
    )
    if float(app.config.get("NOTIFY_EVERY") or 0) > 0:  # `referee serve --notify-every`
        from referee.notify import background

        background.start(app.extensions["referee"], float(app.config["NOTIFY_EVERY"]))

    csrf.init_app(app)
    compress.init_app(app)
    _fingerprint_static(app)

    from referee.web import api, calendars, host, pages, pictures, player, public, season_api
    from referee.web.season_files import bp as season_files_bp
    from referee.web.season_pages import bp as season_pages_bp
    from referee.web.signups import bp as signups_bp

    pages.template_helpers(app)
    app.register_blueprint(public.bp)
    app.register_blueprint(host.bp)
    app.register_blueprint(player.bp)
    app.register_blueprint(pictures.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(season_api.bp)
    app.register_blueprint(season_pages_bp)
    app.register_blueprint(calendars.bp)
    app.register_blueprint(season_files_bp)
    app.register_blueprint(signups_bp)  # issue 23, item 7
    csrf.exempt(api.bp)
    csrf.exempt(season_api.bp)

    init_limiter(
        app,
        {
            "host": host.bp,
            "player": player.bp,
            "api": api.bp,
            "season_api": season_api.bp,
            "seasons": season_pages_bp,
            "public": public.bp,
            "pictures": pictures.bp,
            "calendars": calendars.bp,
            "season_files": season_files_bp,
            "signups": signups_bp,
        },
    )
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies
        )

    app.wsgi_app = _BoundedChunkedBody(  # type: ignore[method-assign]
        app.wsgi_app, int(app.config["MAX_CONTENT_LENGTH"])
    )
    _error_pages(app)

    @app.before_request
    def _plain_text_only() -> None:
        # a path that holds a control character names nothing (and PostgreSQL
        # cannot even look it up); a form field must be plain text to be stored
        if request.view_args and not_text_at(list(request.view_args.values())):
            abort(404, description="This address does not name anything here.")
        if request.method in ("POST", "PUT") and not request.path.startswith("/api/"):
            for field, values in request.form.to_dict(flat=False).items():
                found = not_text_at([field, *values])
                if found is not None:
                    raise RuleError.single(
                        "request/bad_text",
                        f"a field of the form holds the character {found[1]}, a control "
                        "character or a code point that is not text; send plain text "
                        "(tabs and new lines are fine)",
                        field,
                    )

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
        if request.path.startswith(("/host/", "/play/", "/season-host/", "/season/")) or (
            request.endpoint == "public.new_match" and request.method == "POST"
        ):
            # secret pages, and the page showing a new match's secret links
            response.headers["Cache-Control"] = "no-store"
        elif request.path.startswith("/api/") and (
            request.method != "GET" or "Authorization" in request.headers
        ):
            # answers carrying tokens, orders or a seat's private view are kept by no cache
            response.headers["Cache-Control"] = "no-store"
        return response

    return app


def static_digest(folder: str, filename: str) -> str | None:
    """A short digest of a static file's content (None when there is no such
    file). Kept per file: read again when its size or modification time
    changed, looked at no more than once a second (every page links a few)."""
    key = (folder, filename)
    now = time.monotonic()
    found = _digests.get(key)
    if found is not None and now - found[1] < 1.0:
        return found[0]
    joined = safe_join(folder, filename)  # never outside the static folder
    try:
        info = os.stat(joined) if joined is not None else None
    except (OSError, ValueError):
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        digest = None
    else:
        digest = _digest_of(joined or "", info.st_size, info.st_mtime_ns)
    _digests[key] = (digest, now)
    return digest


# (static folder, file name) -> (its digest or None, when it was last looked at)
_digests: dict[tuple[str, str], tuple[str | None, float]] = {}


@lru_cache(maxsize=512)
def _digest_of(path: str, size: int, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def _fingerprint_static(app: Flask) -> None:
    """Every ``url_for('static', filename=...)`` gets ``?v=<digest of the file>``,
    and a static file asked for with its current digest may be kept a year
    (``immutable``): a changed file gets a new address. Asked for without it, or
    with an old one, it is sent as Flask sends any static file (``no-cache``:
    the browser checks its ETag each time)."""

    @app.url_defaults
    def _add_digest(endpoint: str | None, values: dict[str, Any]) -> None:
        if endpoint != "static" or "v" in values or app.static_folder is None:
            return
        filename = values.get("filename")
        if isinstance(filename, str):
            digest = static_digest(app.static_folder, filename)
            if digest is not None:
                values["v"] = digest

    @app.after_request
    def _static_lifetime(response: Response) -> Response:
        if request.endpoint != "static" or response.status_code not in (200, 304):
            return response
        asked = request.args.get("v")
        filename = (request.view_args or {}).get("filename")
        if (
            asked
            and isinstance(filename, str)
            and app.static_folder is not None
            and asked == static_digest(app.static_folder, filename)
        ):
            response.headers["Cache-Control"] = IMMUTABLE
        return response


class _BoundedChunkedBody:
    """WSGI middleware: a body sent without ``Content-Length`` (chunked) is read
    here up to the size limit. Werkzeug would otherwise read such a body only up
    to the limit and silently parse the truncated part; here a body over the
    limit is made to look like what it is (``Content-Length`` above the limit),
    so Flask refuses it with 413 like any other, and a body within it is handed
    on with its length."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        # werkzeug reads such a body as having no length (a chunked one always)
        chunked = environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked"
        unknown = chunked or environ.get("CONTENT_LENGTH") in (None, "")
        if unknown and environ.get("wsgi.input_terminated"):
            data = environ["wsgi.input"].read(self.limit + 1)
            environ["CONTENT_LENGTH"] = str(len(data))
            environ["wsgi.input"] = io.BytesIO(b"" if len(data) > self.limit else data)
            # the body is now an ordinary one of known length
            del environ["wsgi.input_terminated"]
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)


def _error_pages(app: Flask) -> None:
    from referee.errors import RuleError
    from referee.web.common import status_for

    def wants_json() -> bool:
        return request.path.startswith("/api/")

    @app.errorhandler(RuleError)
    def _refused(exc: RuleError) -> tuple[Any, int, dict[str, str]]:
        # the one answer to a refusal from any blueprint: every problem, with the
        # status of the gravest (a page that shows a refusal on its form catches it)
        status = status_for(exc)
        if wants_json():
            headers = {}
            if status == 401:  # RFC 9110: a 401 names the scheme to authenticate with
                headers["WWW-Authenticate"] = 'Bearer realm="referee"'
            return {"errors": [p.as_dict() for p in exc.problems]}, status, headers
        title = "Not found" if status == 404 else "That was refused"
        page = render_template(
            "error.html", code=status, title=title, message=None, problems=exc.problems
        )
        return page, status, {}

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
        message = exc.description or too_many_message()
        busy = exc.limit.scope != SCOPE  # a limit on work, not on wrong tokens
        if wants_json():
            code = "request/rate_limited" if busy else "auth/rate_limited"
            return {"errors": [{"code": code, "message": message}]}, 429, headers
        title = "Too many requests" if busy else "Too many attempts"
        page = render_template("error.html", code=429, title=title, message=message)
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


def seasons() -> Seasons:
    """The seasons' service of the current app (issue 15)."""
    from flask import current_app

    svc: Seasons = current_app.extensions["seasons"]
    return svc


__all__ = ["create_app", "g", "referee"]
