"""aiogram's CallbackData factories for every kind of button, made from `render.callbacks`.

The screens (pure) declare each button's data once and pack it; here each declaration becomes a
CallbackData model with the same prefix and fields, so routers filter and parse taps aiogram's
way (`MoveCallback.filter(F.verb == Verb.CARD)`) and the format cannot drift. A handler takes the
parsed `callback_data: CallbackData` and reads it as its record (`record_of(callback_data, Move)`):
the models are made at run time, so only the records are types a checker knows.
Whatever fails to parse, or matches no handler's filter, is answered as an unknown button by the
fallback handler.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, get_type_hints

from aiogram.filters.callback_data import CallbackData
from pydantic import create_model

from tg_durak.render import callbacks as records
from tg_durak.render.callbacks import CallbackRecord

R = TypeVar("R", bound=CallbackRecord)
_RECORDS: dict[type[CallbackData], type[CallbackRecord]] = {}   # each model's record


def factory(record: type[CallbackRecord]) -> type[CallbackData]:
    """The CallbackData model of `record`: its prefix, its fields in order, their defaults."""
    hints = get_type_hints(record, include_extras=True)
    fields: dict[str, Any] = {
        f.name: (hints[f.name], ... if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(record)}
    model = create_model(f"{record.__name__}Callback", __base__=CallbackData,
                         __module__=__name__, __cls_kwargs__={"prefix": record.prefix}, **fields)
    _RECORDS[model] = record
    return model


def record_of(data: CallbackData, record: type[R]) -> R:
    """The parsed tap as `record` (its factory's record): the fields are parsed and checked
    already, this only gives them their declared types."""
    if _RECORDS.get(type(data)) is not record:
        raise TypeError(f"{type(data).__name__} is not the model of {record.__name__}")
    return record(**dict(data))


MoveCallback = factory(records.Move)
SetupCallback = factory(records.Setup)
SetupOptionCallback = factory(records.SetupOption)
LangCallback = factory(records.Lang)
KickCallback = factory(records.Kick)
MenuCallback = factory(records.Menu)
LobbyTapCallback = factory(records.LobbyTap)
LobbyOptionCallback = factory(records.LobbyOption)
InlineOpenCallback = factory(records.InlineOpen)
