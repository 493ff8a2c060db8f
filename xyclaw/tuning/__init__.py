"""Network tuning: fabric probe, NCCL environment, nccl-tests runner and verdict."""
