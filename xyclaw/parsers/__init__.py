"""Readers of what real commands print on GPU nodes: nvidia-smi, NIC counters, IB tools,
the kernel log, nccl-tests and training logs.

A leaf package: telemetry, tuning and jobs all read remote output through it, and
every reader returns what it could read with the lines it could not, never raising
on bad input (see :func:`xyclaw.parsers.guard.parse_guard`).
"""
