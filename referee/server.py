"""``referee serve``: the app under gunicorn, configured from the command line."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication


class _Server(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from referee.web import create_app

        # the database was migrated by `referee serve` before the workers started
        return create_app({"AUTO_MIGRATE": False})


def serve(host: str, port: int, workers: int) -> None:
    _Server(
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "accesslog": "-",
            "timeout": 60,
            # several servers may run on one machine (tests, benchmarks): no shared
            # control socket in the home folder
            "control_socket_disable": True,
        }
    ).run()
