-- Telegram updates the bot has taken on. Telegram offers an update again until a later
-- getUpdates confirms it, so a bot killed in between would get it twice after its restart;
-- one listed here is skipped (a tap is applied at most once). Only the latest are kept.
CREATE TABLE handled_updates (
    update_id INTEGER PRIMARY KEY
);
