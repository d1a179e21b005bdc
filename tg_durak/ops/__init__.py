"""What an operator runs beside the bot: check, backup, the ratings rebuild, the stats file and the
garbage-collector tuning.
"""
