"""Helpers shared by the test folders: explicit deals, random-game drivers, AI positions."""
