"""Everything a player reads, in en, ru, uk and pl: the translator, the catalog tool (compile,
check) and the locales. Imports nothing of the project.
"""
