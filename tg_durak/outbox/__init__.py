"""What goes out to Telegram: its budgets, the latest-wins queue (aiogram-free) and the publisher
that sends and edits.
"""
