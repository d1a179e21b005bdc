"""Pure rendering: (what a player may see, a Translator) -> Screen. Nothing here changes state."""
