"""Screens of the standings: a player's own record and a chat's table of players."""

from __future__ import annotations

from babel.numbers import format_percent

from tg_durak.i18n.translate import Translator
from tg_durak.play.rows import PlayerRecord, Standing
from tg_durak.render.menus import play_buttons
from tg_durak.render.privacy import person_name
from tg_durak.render.screen import Screen

OWN_LINE_MARK = "▸"


def _games(n: int, t: Translator) -> str:
    return t.plural("stats.games", n, n=n)


def _durak_rate(durak: int, games: int, t: Translator) -> str:
    return format_percent(durak / games if games else 0, locale=t.locale)


def record_screen(record: PlayerRecord, t: Translator) -> Screen:
    """The player's rating, his games against people and, apart, against computers."""
    people, computers = record.people, record.computers
    if record.rating is None:
        lines = [t("stats.no_rating")]
    else:
        durak = t.plural("stats.durak_times", people.durak, n=people.durak,
                         rate=_durak_rate(people.durak, people.games, t))
        lines = [t("stats.rating", rating=record.rating.shown),
                 t("stats.people", games=_games(people.games, t), durak=durak,
                   draws=people.draws)]
    lines.append(t("stats.computers", games=_games(computers.games, t), safe=computers.safe,
                   durak=computers.durak, draws=computers.draws,
                   resigned=computers.resigned))
    return Screen("\n\n".join(lines), play_buttons(t))


def leaderboard_screen(standings: list[Standing], asker: int, t: Translator) -> Screen:
    """The chat's best players, then the asker's own line if he stands lower (marked ▸)."""
    if not standings:
        return Screen(t("top.empty"))
    lines = [t("top.title")]
    for previous, row in zip([None, *standings], standings, strict=False):
        if previous is not None and row.position > previous.position + 1:
            lines.append("…")
        line = t("top.line", position=row.position, name=person_name(row.name, t),
                 rating=row.rating, games=_games(row.games, t),
                 rate=_durak_rate(row.durak, row.games, t))
        lines.append(f"{OWN_LINE_MARK} {line}" if row.user_id == asker else line)
    return Screen("\n".join(lines))
