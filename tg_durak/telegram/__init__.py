"""The aiogram side: routers and thin handlers, CallbackData factories, middlewares, the throttle,
update claiming and retries.
"""
