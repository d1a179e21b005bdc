"""Helpers shared by the test folders: explicit deals, random-game drivers, AI positions, the
load balancer in front of several webhook processes."""
