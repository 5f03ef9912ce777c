"""Alembic environment: runs migrations on the engine the referee hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import referee.models  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    engine = config.attributes.get("engine")
    if engine is None:
        from referee.db import database_url, make_engine

        engine = make_engine(database_url())
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
