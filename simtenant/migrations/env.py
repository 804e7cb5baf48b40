"""Alembic environment: migrations run from code on a connection we pass in."""

from alembic import context

from simtenant.schema import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - we never run migrations offline
    raise RuntimeError("simtenant migrations run through simtenant.db, with a connection")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
