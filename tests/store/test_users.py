"""Users: created on their first update, renamed, their language and settings. Their rows are kept
in memory: every update reads its sender's row, and that read must cost no SQL once the row is
known, while every change made through the store shows at once."""

import pytest

from tests.store.helpers import statements_sent
from tg_durak.storage import Store
from tg_durak.storage import users as users_module

ANN = 1


async def test_users(store: Store) -> None:
    assert await store.users.get(1) is None
    assert await store.users.ensure(1, "Ann") == (await store.users.get(1))
    renamed = await store.users.ensure(1, "Anna")
    assert renamed.name == "Anna"
    assert renamed.language is None
    assert renamed.settings == {}

    await store.users.set_language(1, "uk")
    await store.users.set_settings(1, {"cards": "emoji", "name": "Ганна"})
    user = await store.users.get(1)
    assert user is not None
    assert user.language == "uk"
    assert user.settings == {"cards": "emoji", "name": "Ганна"}

    with pytest.raises(LookupError):
        await store.users.set_language(2, "pl")


async def test_reachable_is_set_and_cleared(store: Store) -> None:
    await store.users.ensure(ANN, "Ann")
    assert not (await store.users.get(ANN)).reachable
    await store.users.set_reachable(ANN, True)
    assert (await store.users.get(ANN)).reachable
    await store.users.set_reachable(ANN, False)
    assert not (await store.users.get(ANN)).reachable
    await store.users.set_reachable(99, True)   # an unknown user: nothing to do


async def test_a_known_user_costs_no_sql(store: Store) -> None:
    await store.users.ensure(ANN, "Ann")
    seen = statements_sent(store)
    assert (await store.users.ensure(ANN, "Ann")).name == "Ann"
    assert (await store.users.get(ANN)).id == ANN
    await store.users.set_reachable(ANN, False)   # already so
    assert seen == []


async def test_changes_show_at_once(store: Store) -> None:
    await store.users.ensure(ANN, "Ann")
    await store.users.set_language(ANN, "uk")
    assert (await store.users.get(ANN)).language == "uk"
    await store.users.set_settings(ANN, {"bots": 2})
    assert (await store.users.ensure(ANN, "Ann")).settings == {"bots": 2}
    await store.users.set_reachable(ANN, True)
    assert (await store.users.get(ANN)).reachable
    renamed = await store.users.ensure(ANN, "Anna")
    assert renamed.name == "Anna" and renamed.language == "uk"
    assert (await store.users.get(ANN)).name == "Anna"


async def test_the_rows_in_memory_are_those_on_disk(store: Store, db_path: str) -> None:
    await store.users.ensure(ANN, "Ann")
    await store.users.set_language(ANN, "pl")
    await store.users.set_reachable(ANN, True)
    other = await Store.open(db_path)
    try:
        assert await other.users.get(ANN) == await store.users.get(ANN)
    finally:
        await other.close()


async def test_the_least_recently_used_are_forgotten(store: Store, monkeypatch) -> None:
    monkeypatch.setattr(users_module, "_USERS_KEPT", 2)
    for user_id in (1, 2, 3):
        await store.users.ensure(user_id, f"P{user_id}")
    assert list(store.users._rows) == [2, 3]
    assert (await store.users.get(1)).name == "P1"   # read again from the database
    assert list(store.users._rows) == [3, 1]


async def test_a_first_language_is_stored_with_the_row_in_one_statement(store: Store) -> None:
    sent = statements_sent(store, keep=lambda sql: sql.split()[0].upper())
    assert (await store.users.ensure(ANN, "Ann", "uk")).language == "uk"
    assert sent == ["BEGIN", "INSERT", "COMMIT"]
    assert (await store.users.ensure(ANN, "Ann", "pl")).language == "uk", "his own stays"


async def test_a_user_without_a_language_gets_the_one_given(store: Store, db_path: str) -> None:
    await store.users.ensure(ANN, "Ann")
    await store.users.ensure(ANN, "Ann", "ru")
    assert (await store.users.get(ANN)).language == "ru"
    other = await Store.open(db_path)
    try:
        assert (await other.users.ensure(ANN, "Ann", "pl")).language == "ru"
        assert (await other.users.ensure(ANN, "Anna", "pl")).language == "ru"
        assert (await other.users.get(ANN)).name == "Anna"
    finally:
        await other.close()


async def test_a_known_user_with_a_language_costs_no_sql(store: Store) -> None:
    await store.users.ensure(ANN, "Ann", "uk")
    seen = statements_sent(store)
    assert (await store.users.ensure(ANN, "Ann", "pl")).language == "uk"
    assert seen == []
