"""The one owner of every table and lobby change: a small core (registry, per-table lock, commit,
plan, schedule) and its collaborators. Imports no aiogram: screens leave through a display.
"""
