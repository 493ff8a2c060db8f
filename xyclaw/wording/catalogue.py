"""Every area's wording in one table, checked once when it is first needed."""

from __future__ import annotations

from xyclaw.wording import (
    agent,
    agent_rules,
    alerts,
    cli,
    cli_help,
    cli_more,
    cli_usage,
    common,
    demo,
    diagnose,
    doctor,
    errors,
    jobs,
    operations,
    parsers,
    planner,
    providers,
    tuning_notes,
    turns,
    typed,
    xid_catalog,
)


def _merged() -> dict[str, tuple[str, str]]:
    merged: dict[str, tuple[str, str]] = {}
    modules = [common, operations, jobs, alerts, agent, errors, turns, diagnose, xid_catalog]
    modules += [cli, cli_help, planner]
    modules += [doctor, tuning_notes]  # issue 35 (d35): doctor's checks, tuning's notes
    modules += [demo, parsers, cli_usage]  # issue 35 (a35): demo, parsers, usage, slurm
    modules += [typed]  # issue 35 (b35): what people type, said back
    modules += [providers]  # issue 35 (c35p): the real clouds' errors
    modules += [agent_rules]  # issue 35: the rules brain's lines, once its own table
    modules += [cli_more]  # issue 35 (c35): chat's lines, offers file fields, guard errors
    for module in modules:
        for key, entry in module.TEXTS.items():
            if key in merged:
                raise RuntimeError(f"wording key {key!r} is defined twice ({module.__name__})")
            merged[key] = entry
    return merged


#: key: (English, Chinese).
CATALOGUE: dict[str, tuple[str, str]] = _merged()
