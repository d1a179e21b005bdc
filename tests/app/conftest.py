"""The table service's tests run on SQLite and on PostgreSQL alike (the store's `db_path`): on
PostgreSQL every change takes the database's lock and validates what the service holds against
the store (a database several processes share), and must behave as on SQLite in one process."""

from tests.store.conftest import db_path, pg_database, pg_url  # noqa: F401  (fixtures)
