"""`python -m tg_durak` runs the bot; `python -m tg_durak local` plays in this terminal;
`python -m tg_durak ratings --rebuild` recomputes the ratings; `python -m tg_durak check` verifies
the database and `python -m tg_durak backup PATH` copies it (both safe while the bot runs)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

# Another instance polls with the same token: a supervisor should not restart this one (it
# would take the updates back and stop the other, for ever in turn).
CONFLICT_EXIT = 3


def main(argv: list[str]) -> int:
    if argv[:1] == ["local"]:
        from tg_durak.local import main as local_main

        return local_main(argv[1:])
    if argv[:1] == ["ratings"]:
        from tg_durak.ratings_cli import main as ratings_main

        return ratings_main(argv[1:])
    if argv[:1] in (["check"], ["backup"]):
        from tg_durak.maintenance_cli import main as maintenance_main

        return maintenance_main(argv)
    from tg_durak.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from tg_durak.app import run
    from tg_durak.store import SchemaTooNew

    conflict = None
    try:
        with contextlib.suppress(KeyboardInterrupt):
            conflict = asyncio.run(run(settings))
    except SchemaTooNew as exc:
        print(f"tg-durak: {exc}", file=sys.stderr)
        return 2
    if conflict:
        print("tg-durak: stopped: another instance of this bot is taking its updates (Telegram: "
              f"{conflict}); run one instance per token", file=sys.stderr)
        return CONFLICT_EXIT
    return 0


if __name__ == "__main__":
    # Ctrl-C while the modules still load (aiogram takes seconds) quits as quietly as later on;
    # hence no tg_durak import at the top of this module.
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main(sys.argv[1:]))
