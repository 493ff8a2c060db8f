"""The selection model: memory fit, time from FLOPs, cost, ranked options with reasons."""
