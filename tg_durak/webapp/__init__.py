"""The Mini App: the bot's own web server (aiohttp, the bot's loop), the launch-data check, one
WebSocket per open app and the static page. A second way to see the same tables: moves enter
`tables/` as a chat tap does, and each change reaches the sockets through a `TableDisplay`.
"""
