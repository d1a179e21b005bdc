"""What a person is told when the database refused to save what he did (a full disk, a file
locked too long, a database server down): a polite answer in his language; nothing changed, and
trying again later works. By webhook only a tap meets it (telegram.update_claims): other updates
are offered again by Telegram instead.
And Telegram refusing a handler's own request (a tap's answer after its 15 s, a member lookup
after the retries): what the handler did stands, nobody can be told, one line in the log.

Any handler (or middleware) may meet either, so they are caught here, as errors of the update,
instead of in each of them.
"""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent, User

from tg_durak.i18n.translate import pick_locale, translator
from tg_durak.outbox.publisher import Publisher
from tg_durak.render.screen import Screen
from tg_durak.storage import DatabaseDown, Store, StoreUnavailable

log = logging.getLogger(__name__)


async def _language(store: Store, user: User) -> str:
    """The language he chose, if the store can still be read; else his Telegram language."""
    try:
        row = await store.users.get(user.id)
    except Exception:
        row = None
    if row is not None and row.language:
        return row.language
    return pick_locale(user.language_code)


async def not_saved(event: ErrorEvent, store: Store, publisher: Publisher) -> None:
    update = event.update
    # A database that does not answer was logged once by the store, not once per tap.
    log.log(logging.INFO if isinstance(event.exception, DatabaseDown) else logging.WARNING,
            "update %s not handled: %s", update.update_id, event.exception)
    query, message = update.callback_query, update.message
    person = query.from_user if query else message.from_user if message else None
    if person is None:
        return
    text = translator(await _language(store, person))("error.not_saved")
    if query is not None:
        await query.answer(text, show_alert=True)
    elif message is not None:
        publisher.send(message.chat.id, Screen(text), reply_to=message.message_id)


async def telegram_refused(event: ErrorEvent) -> None:
    # Telegram's words only: they never hold a request's text (a hand may be in it).
    log.warning("update %s: Telegram refused a request: %s", event.update.update_id,
                event.exception)


def router() -> Router:
    r = Router(name="failures")
    r.errors.register(not_saved, ExceptionTypeFilter(StoreUnavailable))
    r.errors.register(telegram_refused, ExceptionTypeFilter(TelegramAPIError))
    return r
