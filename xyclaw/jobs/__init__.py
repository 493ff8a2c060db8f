"""Job specs, multi-node launch over SSH, logs, status, cancel and resume."""
