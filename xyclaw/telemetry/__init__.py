"""Live GPU and NIC metrics: collectors, parsers, ring buffers, persistence, alert rules."""
