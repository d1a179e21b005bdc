"""aiogram Routers, one per concern; each module's `router()` builds a fresh one."""
