"""Screens outside a game: greeting, setup, statistics, languages, confirmations."""

from __future__ import annotations

from html import escape

from tg_durak.i18n.translate import LANGUAGE_NAMES, LOCALES, Translator
from tg_durak.play.options import LEVELS, MAX_OPPONENTS, OptionField, PlaySettings
from tg_durak.render.buttons import button, marked, open_bot
from tg_durak.render.callbacks import (
    Lang,
    Menu,
    MenuAction,
    RuleBook,
    Setup,
    SetupField,
    SetupOption,
)
from tg_durak.render.options import MAIN_OPTIONS, MORE_OPTIONS, options_rows, options_summary
from tg_durak.render.quick_taps import QuickTap, QuickVerb
from tg_durak.render.screen import Button, Keyboard, Screen

GROUP_START = "durak"   # the payload of "add me to a group" (the group's /start answers it)


def play_buttons(t: Translator) -> Keyboard:
    return ((button(t("btn.quick_play"), Menu(action=MenuAction.QUICK)),
             button(t("btn.setup"), Menu(action=MenuAction.SETUP))),
            (button(t("btn.quick_game"), QuickTap(QuickVerb.OPEN)),))


def start_screen(name: str, t: Translator) -> Screen:
    return Screen(t("start.greeting", name=escape(name)), play_buttons(t))


def _setup_option(field: OptionField, value: str) -> SetupOption:
    return SetupOption(field=field, value=value)


def setup_screen(s: PlaySettings, t: Translator) -> Screen:
    """The /play message: the common choices, Start, and the way to the other options."""
    rows = [
        *options_rows(s.options, t, _setup_option, MAIN_OPTIONS),
        [button(marked(str(n), n == s.bots), Setup(field=SetupField.BOTS, value=str(n)))
         for n in range(1, MAX_OPPONENTS + 1)],
        [button(marked(t(f"level.{lv}"), lv == s.level), Setup(field=SetupField.LEVEL, value=lv))
         for lv in LEVELS],
        [button(t("btn.more_options"), Setup(field=SetupField.MORE)),
         button(t("btn.start"), Setup(field=SetupField.START))],
    ]
    text = t("setup.text", options=options_summary(s.options, t), bots=s.bots,
             level=t(f"level.{s.level}"))
    return Screen(text, rows)


def options_screen(s: PlaySettings, t: Translator) -> Screen:
    """More options of the same setup message (also what ⚙ Settings opens)."""
    rows = [
        *options_rows(s.options, t, _setup_option, MORE_OPTIONS),
        [button(t("btn.back"), Setup(field=SetupField.BACK)),
         button(t("btn.start"), Setup(field=SetupField.START))],
    ]
    text = t("setup.options_text", options=options_summary(s.options, t))
    return Screen(text, rows)


def lang_screen(current: str, t: Translator) -> Screen:
    row = [button(marked(LANGUAGE_NAMES[code], code == current), Lang(code=code))
           for code in LOCALES]
    return Screen(t("lang.choose"), [row[:2], row[2:]])


def rules_screen(t: Translator) -> Screen:
    return Screen(t("rules.short"), [
        [button(t("btn.rules_throw_in"), Menu(action=MenuAction.RULES, book=RuleBook.THROW_IN)),
         button(t("btn.rules_transfer"), Menu(action=MenuAction.RULES, book=RuleBook.TRANSFER))],
        [button(t("btn.rules_options"), Menu(action=MenuAction.RULES, book=RuleBook.OPTIONS))],
    ])


def confirm_screen(question: str, sure: str, action: MenuAction, t: Translator) -> Screen:
    """A step that cannot be undone, asked once more: the sure button, or keep playing."""
    return Screen(t(question), [[
        button(t(sure), Menu(action=action)),
        button(t("btn.keep_playing"), Menu(action=MenuAction.KEEP)),
    ]])


def quit_screen(t: Translator) -> Screen:
    return confirm_screen("quit.confirm", "btn.resign", MenuAction.RESIGN, t)


def private_only_screen(bot_username: str, start: str, t: Translator) -> Screen:
    """A private command sent in a group: it works in the private chat, one tap away."""
    return Screen(t("group.private_only"),
                  [[open_bot(t("btn.open_private"), bot_username, start)]])


def help_screen(t: Translator) -> Screen:
    return Screen(t("help.text"), play_buttons(t))


def group_only_screen(command: str, bot_username: str, t: Translator) -> Screen:
    """A group's command sent in the private chat: where it works, and the way there."""
    add = Button(t("btn.add_to_group"), url=f"https://t.me/{bot_username}?startgroup={GROUP_START}")
    return Screen(t("private.group_only", command=f"/{command}"), [[add]])
