"""What the page reads, in the player's language: the `app.*` texts of the catalog, sent once in
the welcome frame, so that the page shows nothing the catalog does not hold."""

from __future__ import annotations

from tg_durak.i18n.translate import pick_locale, translator
from tg_durak.render.app_state import rank_letters
from tg_durak.webapp.launch import Launch
from tg_durak.webapp.sockets import Viewer

APP_TEXTS = (
    "app.title", "app.connecting", "app.reconnecting", "app.no_launch", "app.launch_forged",
    "app.launch_expired", "app.no_table", "app.bad_frame", "app.too_fast", "app.take",
    "app.pass", "app.transfer", "app.show_trump", "app.join", "app.again", "app.rematch",
    "app.you", "app.hand", "app.table", "app.stock", "app.discard", "app.trump",
    "app.card_back", "app.beaten_by", "app.choose_target", "app.choose_transfer",
    "app.watching", "app.lobby", "app.lobby_joined", "app.app_closed", "app.four_colour",
    "app.close_chooser", "app.offline_move", "app.move_unconfirmed", "app.window",
    "app.window_closing", "app.seconds", "app.start", "app.lobby_host", "app.answer_late",
)
# What the page shows before its socket's welcome (GET texts/<language>).
EARLY_TEXTS = ("app.connecting", "app.reconnecting", "app.no_launch")
# Why the server refused a frame or a launch: the error frame's code -> its text.
ERROR_TEXTS = {"bad_frame": "app.bad_frame", "too_big": "app.bad_frame",
               "too_fast": "app.too_fast", "launch_forged": "app.launch_forged",
               "launch_expired": "app.launch_expired", "no_table": "app.no_table",
               "banned": "banned.line"}


def welcome(viewer: Viewer, launch: Launch) -> dict:
    t = viewer.t
    return {"type": "welcome", "user": {"id": launch.user_id, "name": launch.name},
            "locale": t.locale, "strings": {key: t.unfilled(key) for key in APP_TEXTS},
            "ranks": rank_letters(t)}


def early_texts(language: str) -> dict[str, str]:
    t = translator(pick_locale(language))
    return {key: t(key) for key in EARLY_TEXTS}
