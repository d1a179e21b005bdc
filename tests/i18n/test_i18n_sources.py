"""User-facing text in tg_durak/ comes from the catalog, and the keys the code asks for exist."""

import ast
import textwrap

from tg_durak.i18n.catalog import (
    PACKAGE_DIR,
    check_sources,
    english_keys,
    find_bypasses,
    find_unknown_keys,
    read_catalogs,
    source_files,
)


def test_code_shows_no_text_outside_the_catalog_and_asks_only_for_existing_keys():
    assert check_sources(english_keys(read_catalogs())) == []


def _marked_lines(source: str, marker: str) -> list[int]:
    return [n for n, line in enumerate(source.splitlines(), 1) if line.endswith(marker)]


BYPASSES = textwrap.dedent("""
    async def on_start(message, callback, bot, t, card, n, view):
        await message.answer("Welcome to Durak!")  # BYPASS
        await message.answer(t("lang.choose"))
        await message.answer(f"{card} ♠ 10 ✅ {n}/36")
        await message.answer(f"<b>{t('lang.choose')}</b>")
        await message.reply(f"Trump: {card}")  # BYPASS
        await bot.send_message(42, "Your turn")  # BYPASS
        await bot.send_message(42, t.plural("game.cards", n, n=n))
        await bot.edit_message_text("Game over", chat_id=1, message_id=2)  # BYPASS
        await callback.message.edit_text("\\n".join([t("lang.choose"), "Bye"]))  # BYPASS
        await callback.answer(text="Not your turn", show_alert=True)  # BYPASS
        await bot.answer_callback_query(callback.id, "Too late")  # BYPASS
        await message.answer(t("lang.set", language="Polish"))  # BYPASS
        await message.answer(t("lang.set", language=view.language))
        await message.answer(("Yes" if n else "🂠"))  # BYPASS
        await message.answer("Cards: " + str(n))  # BYPASS
        button = InlineKeyboardButton(text="Join", callback_data="join:1")  # BYPASS
        ok = InlineKeyboardButton(text="🃏", callback_data="join:1")
        BotCommand(command="play", description="Play a game")  # BYPASS
        screen = Screen(text="Waiting for players…", keyboard=None)  # BYPASS
        other = Screen("Waiting", None)  # BYPASS
        builder.button(text=f"{card}", callback_data=f"play:{card}")
        return render(view, mode="compact"), F.data == "start"
""")


def test_scanner_finds_every_bypass_in_a_sample():
    found = find_bypasses(ast.parse(BYPASSES), "sample.py")
    assert [int(problem.split(":")[1]) for problem in found] == _marked_lines(BYPASSES, "BYPASS")
    assert found[0] == (
        "sample.py:3: 'Welcome to Durak!' is shown to users without the catalog; "
        "add a key to the .po files and use t(...)/_(...)"
    )


KEYS = textwrap.dedent("""
    def render(t, _, __, n, variant, key):
        t("lang.choose")
        t("lang.chose")  # BAD
        t.plural("game.cards", n, n=n)
        t("game.cards")  # BAD
        t.plural("lang.set", n)  # BAD
        t(f"rules.{variant}.full")
        t(f"rules.{variant}.ful")  # BAD
        t(key)
        _("lang.set")
        _("lang.sett")  # BAD
        _("game.cards", "game.cards.plural", n)
        _("game.cards", "game.card.plural", n)  # BAD
        __("rules.short")
        __("rules.long")  # BAD
""")


def test_scanner_finds_every_unknown_key_in_a_sample():
    keys = english_keys(read_catalogs())
    found = find_unknown_keys(ast.parse(KEYS), "sample.py", keys)
    assert [int(problem.split(":")[1]) for problem in found] == _marked_lines(KEYS, "BAD")


def test_scan_covers_the_package_but_not_the_emulator_and_the_i18n_plumbing(tmp_path):
    for name in ["bot.py", "render/table.py", "emulator/server.py", "i18n/translate.py",
                 "i18n/catalog.py"]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('async def f(message):\n    await message.answer("Hi")\n')
    assert [p.relative_to(tmp_path).as_posix() for p in source_files(tmp_path)] == [
        "bot.py",
        "render/table.py",
    ]
    assert len(check_sources({}, tmp_path)) == 2
    assert PACKAGE_DIR / "i18n" / "translate.py" not in source_files()
