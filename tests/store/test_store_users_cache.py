"""Users' rows are kept in memory: every update reads its sender's row, and that read must cost
no SQL once the row is known, while every change made through the store shows at once."""

from pathlib import Path

from tg_durak.storage import Store
from tg_durak.storage import store as store_module

ANN = 1


def count_statements(store: Store) -> list[str]:
    """Every SQL statement the store runs from now on."""
    seen: list[str] = []
    execute = store._db.execute

    def counting(sql, *args, **kwargs):
        seen.append(sql)
        return execute(sql, *args, **kwargs)

    store._db.execute = counting
    return seen


async def test_a_known_user_costs_no_sql(store: Store) -> None:
    await store.ensure_user(ANN, "Ann")
    seen = count_statements(store)
    assert (await store.ensure_user(ANN, "Ann")).name == "Ann"
    assert (await store.get_user(ANN)).id == ANN
    await store.set_reachable(ANN, False)   # already so
    assert seen == []


async def test_changes_show_at_once(store: Store) -> None:
    await store.ensure_user(ANN, "Ann")
    await store.set_language(ANN, "uk")
    assert (await store.get_user(ANN)).language == "uk"
    await store.set_settings(ANN, {"bots": 2})
    assert (await store.ensure_user(ANN, "Ann")).settings == {"bots": 2}
    await store.set_reachable(ANN, True)
    assert (await store.get_user(ANN)).reachable
    renamed = await store.ensure_user(ANN, "Anna")
    assert renamed.name == "Anna" and renamed.language == "uk"
    assert (await store.get_user(ANN)).name == "Anna"


async def test_the_rows_in_memory_are_those_on_disk(store: Store, tmp_path: Path) -> None:
    await store.ensure_user(ANN, "Ann")
    await store.set_language(ANN, "pl")
    await store.set_reachable(ANN, True)
    other = await Store.open(str(tmp_path / "durak.sqlite3"))
    try:
        assert await other.get_user(ANN) == await store.get_user(ANN)
    finally:
        await other.close()


async def test_the_least_recently_used_are_forgotten(store: Store, monkeypatch) -> None:
    monkeypatch.setattr(store_module, "_USERS_KEPT", 2)
    for user_id in (1, 2, 3):
        await store.ensure_user(user_id, f"P{user_id}")
    assert list(store._users) == [2, 3]
    assert (await store.get_user(1)).name == "P1"   # read again from the database
    assert list(store._users) == [3, 1]
