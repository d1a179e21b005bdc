"""`python -m tg_durak` runs the bot; `python -m tg_durak local` plays in this terminal;
`python -m tg_durak ratings --rebuild` recomputes the ratings; `python -m tg_durak check` verifies
the database and `python -m tg_durak backup PATH` copies it (both safe while the bot runs);
`python -m tg_durak copy-db SQLITE_PATH postgresql://...` moves it to PostgreSQL.
`python -m tg_durak webhook` runs the bot taking Telegram's webhook posts instead of polling, once
`python -m tg_durak set-webhook` has registered the webhook (from a deploy step).
`python -m tg_durak --help` lists them; each has its own --help."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tg_durak.config import Settings

# Exit codes (docs/running.md). A wrong setting fails the same way at every start.
SETTING_EXIT = 2
# Another instance polls with the same token: a supervisor should not restart this one (it
# would take the updates back and stop the other, for ever in turn).
CONFLICT_EXIT = 3
# Start-up failed for a reason that may pass (Telegram unreachable): a supervisor may retry.
START_EXIT = 4

DESCRIPTION = """\
Durak for Telegram. With no command, runs the bot: BOT_TOKEN and the other settings come from
the environment or a .env file (see the README)."""

EPILOG = f"""\
exit codes of the bot: 0 stopped (SIGTERM, Ctrl-C); {SETTING_EXIT} a wrong setting (it fails
the same way at every start); {CONFLICT_EXIT} another instance polls with this token (do not
restart it); {START_EXIT} start-up failed for a reason that may pass (Telegram unreachable).

Each command has its own --help: python -m tg_durak local --help"""


class _CommandsOnOneLine(argparse.RawDescriptionHelpFormatter):
    """Each command and its summary on one line, set-webhook too: argparse measures the commands
    at their section's indent but lists them 2 further in, which wraps the longest."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            self._action_max_length += 2


class _Version(argparse.Action):
    """--version: the package's version and the schema version of its newest migration, worked
    out only when asked (the migrations' module loads the database drivers)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import version

        from tg_durak.storage import migrations

        print(f"tg-durak {version('tg-durak')}, schema {migrations.load()[-1].version}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """The whole command line. Each command's module defines its options; none of them imports
    the bot until its command runs, so that --help answers at once (aiogram takes seconds)."""
    from tg_durak import terminal
    from tg_durak.ops import check_cli, copy_db, migrate_cli, ratings_cli

    top = argparse.ArgumentParser(prog="python -m tg_durak", usage="%(prog)s [-h] [COMMAND] ...",
                                  description=DESCRIPTION, epilog=EPILOG,
                                  formatter_class=_CommandsOnOneLine)
    top.add_argument("--version", action=_Version, nargs=0,
                     help="print the version and its schema version, then exit")
    top.set_defaults(run=run_bot)
    commands = top.add_subparsers(title="commands", metavar="COMMAND",
                                  help="none: run the bot (needs BOT_TOKEN)")
    for name, summary, doc, add_arguments, run in (
            ("local", "play in this terminal, no Telegram token needed", terminal.__doc__,
             terminal.add_arguments, terminal.run),
            ("check", "verify the database, changing nothing", check_cli.__doc__,
             check_cli.add_check_arguments, check_cli.run_check),
            ("backup", "backup PATH: copy the database to PATH", check_cli.__doc__,
             check_cli.add_backup_arguments, check_cli.run_backup),
            ("ratings", "ratings --rebuild: recompute every rating", ratings_cli.__doc__,
             ratings_cli.add_arguments, ratings_cli.run),
            ("copy-db", "copy-db SQLITE_PATH URL: move the database to PostgreSQL",
             copy_db.__doc__, copy_db.add_arguments, copy_db.run),
            ("migrate", "apply pending migrations (--check: only say if any are)",
             migrate_cli.__doc__, migrate_cli.add_arguments, migrate_cli.run),
            ("webhook", "run the bot on Telegram's webhook instead of polling", WEBHOOK_DOC,
             lambda command: None, run_webhook_bot),
            ("set-webhook", "register the webhook with Telegram (--delete: remove it)",
             SET_WEBHOOK_DOC, add_set_webhook_arguments, run_set_webhook)):
        command = commands.add_parser(name, prog=f"{top.prog} {name}", help=summary,
                                      description=doc,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
        add_arguments(command)
        command.set_defaults(run=run)
    return top


WEBHOOK_DOC = """\
Runs the bot as `python -m tg_durak` does, but takes the updates Telegram posts to
DURAK_WEBHOOK_URL (served at its path on DURAK_WEB_HOST:DURAK_WEB_PORT, behind your TLS proxy)
instead of polling; each post must carry DURAK_WEBHOOK_SECRET. It never sets or deletes the
webhook: run set-webhook once, from a deploy step. On SQLite run one such process; with
DURAK_DB on PostgreSQL and DURAK_REDIS, as many as the load needs, behind one address
(docs/running.md, "Several processes")."""

SET_WEBHOOK_DOC = """\
Registers DURAK_WEBHOOK_URL and DURAK_WEBHOOK_SECRET with Telegram (with the update types the
bot handles; the updates already waiting are kept) and prints what Telegram then says of the
webhook. --delete removes it: the bot can poll again. Exit codes: 0 done, 2 a setting is wrong
(or Telegram refused it), 4 Telegram could not be reached."""


def add_set_webhook_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--delete", action="store_true",
                         help="remove the webhook instead (back to polling)")


def _settings(webhook: bool) -> Settings | None:
    """The settings from the environment, or None once the reason was printed."""
    from tg_durak.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
        if webhook:
            settings.require_webhook()
    except ConfigError as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return None
    return settings


def run_set_webhook(args: argparse.Namespace) -> int:
    """setWebhook (or deleteWebhook) once, then getWebhookInfo printed one field a line."""
    settings = _settings(webhook=not args.delete)
    if settings is None:
        return SETTING_EXIT
    from tg_durak.app import SettingRefused, StartFailed, set_webhook

    try:
        info = asyncio.run(set_webhook(settings, delete=args.delete))
    except SettingRefused as exc:
        _say(settings, str(exc))
        return SETTING_EXIT
    except StartFailed as exc:
        _say(settings, f"webhook not set: {exc}")
        return START_EXIT
    for field, value in info.model_dump(exclude_none=True).items():
        print(f"{field}: {value}")
    return 0


def run_webhook_bot(args: argparse.Namespace) -> int:
    """The bot by webhook until SIGTERM or Ctrl-C; the exit codes of the bot."""
    return _run_bot(webhook=True)


def run_bot(args: argparse.Namespace) -> int:
    """Run the bot until SIGTERM or Ctrl-C; one of the exit codes above."""
    return _run_bot(webhook=False)


def _run_bot(webhook: bool) -> int:
    settings = _settings(webhook)
    if settings is None:
        return SETTING_EXIT
    from tg_durak.ops import logs

    logs.configure(settings)
    from tg_durak.app import AnotherInstance, SettingRefused, StartFailed, run
    from tg_durak.storage import SchemaTooNew

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(settings, webhook=webhook))
    except (SchemaTooNew, SettingRefused) as exc:
        _say(settings, str(exc))
        return SETTING_EXIT
    except StartFailed as exc:
        _say(settings, f"not started: {exc}")
        return START_EXIT
    except AnotherInstance as exc:
        _say(settings, f"stopped: {exc}")
        return CONFLICT_EXIT
    return 0


def _say(settings: Settings, text: str) -> None:
    """One line on stderr (a driver's message may span several), without the secrets that
    message may quote."""
    from tg_durak.ops.logs import hide

    print(f"tg-durak: {' '.join(hide(text, settings.secrets()).split())}", file=sys.stderr)


def main(argv: list[str]) -> int:
    """Parse the command line and run its command (argparse exits with 2 on a wrong one)."""
    from tg_durak.config import ConfigError

    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ConfigError as exc:   # an operator's tool reading DURAK_DB_FILE, say
        print(f"tg-durak: {exc}", file=sys.stderr)
        return SETTING_EXIT


if __name__ == "__main__":
    # Ctrl-C while the modules still load (aiogram takes seconds) quits as quietly as later on;
    # hence no tg_durak import at the top of this module.
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main(sys.argv[1:]))
