"""What several store tests share: SQL behind the store's back, three seats, a running table."""

import sqlite3
from collections.abc import Callable

from tg_durak.play.records import SeatRow
from tg_durak.storage import Store

ANN = SeatRow(seat=0, user_id=1, name="Ann")
BOB = SeatRow(seat=1, user_id=2, name="Bob")
CPU = SeatRow(seat=1, user_id=None, name="Computer", level="strong")


async def running_table(store: Store, chat_id: int = 10) -> int:
    table = await store.tables.create(chat_id, "private", "running", {"deck": 36}, [ANN, CPU],
                                      {"log": 0})
    return table.id


def raw(db_path: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run SQL behind the store's back (to corrupt or inspect the file)."""
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql, params).fetchall()


def statements_sent(store: Store, keep: Callable[[str], str] = str) -> list[str]:
    """Every SQL statement the store sends to SQLite from now on (`keep`: what of each is kept),
    through execute and executemany alike."""
    sent: list[str] = []
    for name in ("execute", "executemany"):
        method = getattr(store.connection._db, name)

        def counting(sql, *args, _method=method, **kwargs):
            sent.append(keep(sql))
            return _method(sql, *args, **kwargs)

        setattr(store.connection._db, name, counting)
    return sent
