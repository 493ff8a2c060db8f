"""Read-only queries of the history for the History page and the agents' history tool."""

from __future__ import annotations

from typing import Any

from xyclaw.errors import UsageError
from xyclaw.store.store import Store

HISTORY_KINDS = ("clusters", "jobs", "events", "plans", "conversations")

_QUERIES = {
    "clusters": (
        "SELECT c.id, c.name, c.provider_id AS provider, c.state, c.gpu, c.gpu_count, c.fabric,"
        " c.region, c.currency, c.price_per_gpu_hour_micros, c.budget_micros, c.created_at,"
        " c.ready_at, c.released_at, c.error, (SELECT coalesce(sum(amount_micros), 0)"
        " FROM charges WHERE cluster_id = c.id AND source = 'meter') AS cost_micros"
        " FROM clusters c WHERE c.created_at >= ? AND c.created_at < ?"
        " ORDER BY c.created_at DESC, c.id DESC LIMIT ?"
    ),
    "jobs": (
        "SELECT j.id, j.name, j.state, j.cluster_id, c.name AS cluster, j.created_at,"
        " j.started_at, j.ended_at, j.exit_code FROM jobs j"
        " LEFT JOIN clusters c ON c.id = j.cluster_id WHERE j.created_at >= ? AND j.created_at < ?"
        " ORDER BY j.created_at DESC, j.id DESC LIMIT ?"
    ),
    "events": (
        "SELECT id, ts, kind, severity, cluster_id, node_id, job_id, rule, message, cleared_at"
        " FROM events WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?"
    ),
    "plans": (
        "SELECT id, ts, conversation_id, request_json, chosen_option FROM plans"
        " WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?"
    ),
    "conversations": (
        "SELECT id, title, brain, created_at, tokens_in, tokens_out, model_cost_micros"
        " FROM conversations WHERE created_at >= ? AND created_at < ?"
        " ORDER BY created_at DESC, id DESC LIMIT ?"
    ),
}


def history_rows(
    store: Store, kind: str, *, since: float = 0.0, until: float = 1e18, limit: int = 50
) -> list[dict[str, Any]]:
    """The newest ``limit`` rows of one kind of history created in ``[since, until)``."""
    query = _QUERIES.get(kind)
    if query is None:
        raise UsageError(f"no history of {kind!r}", hint=f"one of: {', '.join(HISTORY_KINDS)}")
    return store.query(query, [since, until, max(1, min(int(limit), 10_000))])
