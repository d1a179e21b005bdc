"""`python -m tg_durak` runs the bot; `python -m tg_durak local` plays in this terminal;
`python -m tg_durak ratings --rebuild` recomputes the ratings; `python -m tg_durak check` verifies
the database and `python -m tg_durak backup PATH` copies it (both safe while the bot runs)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

# Exit codes (README, "Running it"). A wrong setting fails the same way at every start.
SETTING_EXIT = 2
# Another instance polls with the same token: a supervisor should not restart this one (it
# would take the updates back and stop the other, for ever in turn).
CONFLICT_EXIT = 3
# Start-up failed for a reason that may pass (Telegram unreachable): a supervisor may retry.
START_EXIT = 4


def main(argv: list[str]) -> int:
    if argv[:1] == ["local"]:
        from tg_durak.terminal import main as local_main

        return local_main(argv[1:])
    if argv[:1] == ["ratings"]:
        from tg_durak.ops.ratings_cli import main as ratings_main

        return ratings_main(argv[1:])
    if argv[:1] in (["check"], ["backup"]):
        from tg_durak.ops.check_cli import main as maintenance_main

        return maintenance_main(argv)
    from tg_durak.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return SETTING_EXIT
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from tg_durak.app import AnotherInstance, SettingRefused, StartFailed, run
    from tg_durak.storage import SchemaTooNew

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(settings))
    except (SchemaTooNew, SettingRefused) as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return SETTING_EXIT
    except StartFailed as exc:
        print(f"tg-durak: not started: {exc}", file=sys.stderr)
        return START_EXIT
    except AnotherInstance as exc:
        print(f"tg-durak: stopped: {exc}", file=sys.stderr)
        return CONFLICT_EXIT
    return 0


if __name__ == "__main__":
    # Ctrl-C while the modules still load (aiogram takes seconds) quits as quietly as later on;
    # hence no tg_durak import at the top of this module.
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main(sys.argv[1:]))
