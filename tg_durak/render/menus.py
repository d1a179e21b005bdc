"""Screens outside a game: greeting, setup, statistics, languages, confirmations."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from tg_durak.callbacks import Lang, Menu, MenuAction, RuleBook, Setup, SetupField
from tg_durak.i18n import LANGUAGE_NAMES, LOCALES, Translator
from tg_durak.play_settings import LEVELS, MAX_OPPONENTS, VARIANTS, PlaySettings
from tg_durak.publisher import Screen


def _b(text: str, data: object) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def _mark(text: str, chosen: bool) -> str:
    return f"✅ {text}" if chosen else text


def play_buttons(t: Translator) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[
        _b(t("btn.quick_play"), Menu(action=MenuAction.QUICK)),
        _b(t("btn.setup"), Menu(action=MenuAction.SETUP)),
    ]])


def start_screen(name: str, t: Translator) -> Screen:
    return Screen(text=t("start.greeting", name=escape(name)), markup=play_buttons(t))


def setup_screen(s: PlaySettings, t: Translator) -> Screen:
    rows = [
        [_b(_mark(t(f"variant.{v}"), v == s.variant), Setup(field=SetupField.VARIANT, value=v))
         for v in VARIANTS],
        [_b(_mark(str(n), n == s.bots), Setup(field=SetupField.BOTS, value=str(n)))
         for n in range(1, MAX_OPPONENTS + 1)],
        [_b(_mark(t(f"level.{lv}"), lv == s.level), Setup(field=SetupField.LEVEL, value=lv))
         for lv in LEVELS],
        [_b(t("btn.start"), Setup(field=SetupField.START))],
    ]
    text = t("setup.text", variant=t(f"variant.{s.variant}"), bots=s.bots,
             level=t(f"level.{s.level}"))
    return Screen(text=text, markup=InlineKeyboardMarkup(inline_keyboard=rows))


def lang_screen(current: str, t: Translator) -> Screen:
    row = [_b(_mark(LANGUAGE_NAMES[code], code == current), Lang(code=code)) for code in LOCALES]
    return Screen(text=t("lang.choose"),
                  markup=InlineKeyboardMarkup(inline_keyboard=[row[:2], row[2:]]))


def rules_screen(t: Translator) -> Screen:
    return Screen(text=t("rules.short"), markup=InlineKeyboardMarkup(inline_keyboard=[[
        _b(t("btn.rules_throw_in"), Menu(action=MenuAction.RULES, book=RuleBook.THROW_IN)),
        _b(t("btn.rules_transfer"), Menu(action=MenuAction.RULES, book=RuleBook.TRANSFER)),
    ]]))


def quit_screen(t: Translator) -> Screen:
    return Screen(text=t("quit.confirm"), markup=InlineKeyboardMarkup(inline_keyboard=[[
        _b(t("btn.resign"), Menu(action=MenuAction.RESIGN)),
        _b(t("btn.keep_playing"), Menu(action=MenuAction.KEEP)),
    ]]))
