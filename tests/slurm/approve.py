"""Submitting as the user does: the card first, then the yes the tests give as the user."""

from __future__ import annotations

from xyclaw.engine import Engine
from xyclaw.jobs.slurm_jobs import SlurmJobView


def submit(engine: Engine, spec: str, site: str = "lab") -> SlurmJobView:
    card = engine.slurm_submit_card(site, spec, asked_by="user")
    return engine.slurm_submit(site, spec, approved=card)
