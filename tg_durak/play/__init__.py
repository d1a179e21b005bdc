"""Pure app rules over the engine: taps and stale taps, lobby rules, history, table options,
ratings, the records the store keeps and the one Answer type. No I/O.
"""
