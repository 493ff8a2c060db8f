"""The agents' history: conversations, messages, the tool-call audit, tokens/cost, allowances.

Every read and write of those tables, as named functions over a :class:`Store`.
Writes go through the store's one writer and wait for it. Tool calls are keyed
by ``(conversation_id, call_id)`` and written with an upsert, so a graph step
that re-runs after a restart updates its row instead of adding a second one.
Amounts are integer micro-units; times UTC epoch seconds.
"""

from __future__ import annotations

import json
import time
from typing import Any

from xyclaw.secrets import mask, mask_value
from xyclaw.store.claimant import claimant_gone, this_process
from xyclaw.store.connection import Database
from xyclaw.store.store import Store

_TOOL_CALL_FIELDS = (
    "agent",
    "tool",
    "effect",
    "args_json",
    "status",
    "decision",
    "decided_by",
    "duration_s",
    "summary",
    "result_json",
    "error",
    "from_remote",
    "flagged",
    "summary_said_json",
    "error_said_json",
    "digest",
    "claimant_pid",
    "claimant",
)


def _lastrowid(cursor: Any) -> int:
    rowid = cursor.lastrowid
    assert rowid is not None
    return int(rowid)


# -- conversations ----------------------------------------------------------------------------
def create_conversation(
    store: Store,
    title: str,
    *,
    brain: str,
    kind: str = "chat",
    currency: str = "USD",
    now: float | None = None,
) -> int:
    ts = time.time() if now is None else now

    def write(db: Database) -> int:
        return _lastrowid(
            db.conn.execute(
                "INSERT INTO conversations (title, brain, created_at, updated_at, kind, currency)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (mask(title), brain, ts, ts, kind, currency),
            )
        )

    return store.writer.call(write)


def rename_conversation(store: Store, conversation_id: int, title: str) -> bool:
    def write(db: Database) -> int:
        cur = db.conn.execute(
            "UPDATE conversations SET title = ? WHERE id = ?", (mask(title), conversation_id)
        )
        return int(cur.rowcount)

    return store.writer.call(write) > 0


def delete_conversation(store: Store, conversation_id: int) -> bool:
    """Remove a conversation with its messages, tool calls and allowances."""

    def write(db: Database) -> int:
        db.conn.execute(
            "UPDATE plans SET conversation_id = NULL WHERE conversation_id = ?", (conversation_id,)
        )
        db.conn.execute(
            "UPDATE messages SET tool_call_id = NULL WHERE conversation_id = ?", (conversation_id,)
        )
        for table in ("agent_allowances", "tool_calls", "messages"):
            db.conn.execute(f"DELETE FROM {table} WHERE conversation_id = ?", (conversation_id,))
        cur = db.conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
        return int(cur.rowcount)

    return store.writer.call(write) > 0


_CONVERSATION_SELECT = (
    "SELECT id, title, brain, kind, currency, created_at,"
    " coalesce(updated_at, created_at) AS updated_at, tokens_in, tokens_out,"
    " model_cost_micros AS cost_micros FROM conversations"
)


def get_conversation(store: Store, conversation_id: int) -> dict[str, Any] | None:
    rows = store.query(_CONVERSATION_SELECT + " WHERE id = ?", [conversation_id])
    return rows[0] if rows else None


def list_conversations(
    store: Store, search: str | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    """Newest first; ``search`` matches the title or any message's text (case-insensitive)."""
    sql = _CONVERSATION_SELECT
    params: list[Any] = []
    if search:
        like = f"%{search}%"
        sql += (
            " WHERE title LIKE ? COLLATE NOCASE OR id IN"
            " (SELECT conversation_id FROM messages WHERE content LIKE ? COLLATE NOCASE)"
        )
        params += [like, like]
    sql += " ORDER BY coalesce(updated_at, created_at) DESC, id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return store.query(sql, params)


def conversation_of_kind(store: Store, kind: str) -> int | None:
    """The oldest conversation of a kind (the one "Monitor" conversation), if any."""
    rows = store.query("SELECT id FROM conversations WHERE kind = ? ORDER BY id LIMIT 1", [kind])
    return int(rows[0]["id"]) if rows else None


def add_usage(
    store: Store, conversation_id: int, tokens_in: int, tokens_out: int, cost_micros: int
) -> None:
    def write(db: Database) -> None:
        db.conn.execute(
            "UPDATE conversations SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?,"
            " model_cost_micros = model_cost_micros + ? WHERE id = ?",
            (tokens_in, tokens_out, cost_micros, conversation_id),
        )

    store.writer.call(write)


# -- messages ---------------------------------------------------------------------------------
def add_message(
    store: Store,
    conversation_id: int,
    role: str,
    content: str,
    *,
    agent: str | None = None,
    reasoning: str | None = None,
    tokens_in: int = 0,
    tokens_out: int = 0,
    cost_micros: int = 0,
    tool_call_id: int | None = None,
    data: dict[str, Any] | None = None,
    now: float | None = None,
) -> int:
    """Store a message; its tokens and cost are added to the conversation's totals. Every
    registered secret is masked in its text, reasoning and data (a model may echo its key)."""
    ts = time.time() if now is None else now
    content = mask(content)
    reasoning = None if reasoning is None else mask(reasoning)
    data = mask_value(data)
    row = (
        conversation_id,
        ts,
        role,
        agent,
        content,
        tokens_in + tokens_out,
        reasoning,
        tokens_in,
        tokens_out,
        cost_micros,
        tool_call_id,
        json.dumps(data or {}, default=str, ensure_ascii=False),
    )

    def write(db: Database) -> int:
        message_id = _lastrowid(
            db.conn.execute(
                "INSERT INTO messages (conversation_id, ts, role, agent, content, tokens,"
                " reasoning, tokens_in, tokens_out, cost_micros, tool_call_id, data_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        )
        db.conn.execute(
            "UPDATE conversations SET updated_at = ?, tokens_in = tokens_in + ?,"
            " tokens_out = tokens_out + ?, model_cost_micros = model_cost_micros + ?"
            " WHERE id = ?",
            (ts, tokens_in, tokens_out, cost_micros, conversation_id),
        )
        return message_id

    return store.writer.call(write)


def list_messages(store: Store, conversation_id: int) -> list[dict[str, Any]]:
    """Messages in order, each with its tool call's columns (prefixed ``tc_``) when it has one."""
    rows = store.query(
        "SELECT m.id, m.conversation_id, m.ts, m.role, m.agent, m.content, m.reasoning,"
        " m.tokens_in, m.tokens_out, m.cost_micros, m.tool_call_id, m.data_json,"
        " t.call_id AS tc_call_id, t.tool AS tc_tool, t.effect AS tc_effect,"
        " t.args_json AS tc_args_json, t.status AS tc_status, t.duration_s AS tc_duration_s,"
        " t.summary AS tc_summary, t.error AS tc_error, t.from_remote AS tc_from_remote,"
        " t.summary_said_json AS tc_summary_said_json, t.error_said_json AS tc_error_said_json"
        " FROM messages m LEFT JOIN tool_calls t ON t.id = m.tool_call_id"
        " WHERE m.conversation_id = ? ORDER BY m.id",
        [conversation_id],
    )
    for row in rows:
        row["data"] = json.loads(row.pop("data_json") or "{}")
        for said in ("summary_said", "error_said"):
            raw = row.pop(f"tc_{said}_json", None)
            row[f"tc_{said}"] = json.loads(raw) if raw else None
    return rows


def message_data_values(store: Store, conversation_id: int, key: str) -> set[str]:
    """Every value of ``data[key]`` among a conversation's messages (e.g. alerts already posted)."""
    rows = store.query(
        "SELECT json_extract(data_json, '$.' || ?) AS v FROM messages"
        " WHERE conversation_id = ? AND json_extract(data_json, '$.' || ?) IS NOT NULL",
        [key, conversation_id, key],
    )
    return {str(r["v"]) for r in rows}


def usage_since(store: Store, since: float) -> dict[str, Any]:
    """Tokens and model cost of the messages written since ``since``, per currency."""
    rows = store.query(
        "SELECT c.currency AS currency, coalesce(sum(m.tokens_in), 0) AS tokens_in,"
        " coalesce(sum(m.tokens_out), 0) AS tokens_out,"
        " coalesce(sum(m.cost_micros), 0) AS cost_micros"
        " FROM messages m JOIN conversations c ON c.id = m.conversation_id"
        " WHERE m.ts >= ? GROUP BY c.currency",
        [since],
    )
    return {
        "tokens_in": sum(int(r["tokens_in"]) for r in rows),
        "tokens_out": sum(int(r["tokens_out"]) for r in rows),
        "cost_micros": {str(r["currency"]): int(r["cost_micros"]) for r in rows},
    }


# -- the tool-call audit ----------------------------------------------------------------------
def upsert_tool_call(
    store: Store,
    conversation_id: int,
    call_id: str,
    *,
    now: float | None = None,
    **fields: Any,
) -> int:
    """Insert or update one tool call's audit row; returns its id.

    ``fields`` are columns of ``tool_calls`` (``args``/``result`` may be given as objects).
    """
    ts = time.time() if now is None else now
    # A call's arguments, result and error may quote a secret (a model echoing its key, a
    # command printing a token): masked before anything is written.
    fields = mask_value(fields)
    if "args" in fields:
        fields["args_json"] = json.dumps(fields.pop("args"), default=str, ensure_ascii=False)
    if "result" in fields:
        fields["result_json"] = json.dumps(fields.pop("result"), default=str, ensure_ascii=False)
    for said in ("summary_said", "error_said"):  # Said.to_json() forms, or None
        if said in fields:
            value = fields.pop(said)
            fields[f"{said}_json"] = (
                None if value is None else json.dumps(value, ensure_ascii=False)
            )
    unknown = set(fields) - set(_TOOL_CALL_FIELDS)
    if unknown:
        raise ValueError(f"unknown tool_calls columns: {sorted(unknown)}")
    if fields.get("status") == "running":  # who runs it: told apart once it has died
        fields["claimant_pid"], fields["claimant"] = this_process()
    for flag in ("from_remote", "flagged"):
        if flag in fields:
            fields[flag] = int(bool(fields[flag]))

    def write(db: Database) -> int:
        found = db.conn.execute(
            "SELECT id FROM tool_calls WHERE conversation_id = ? AND call_id = ?",
            (conversation_id, call_id),
        ).fetchone()
        if found is None:
            row = {"args_json": "{}", **fields}
            names = ["conversation_id", "call_id", "ts", "updated_at", *row]
            values = [conversation_id, call_id, ts, ts, *row.values()]
            marks = ", ".join("?" for _ in names)
            return _lastrowid(
                db.conn.execute(
                    f"INSERT INTO tool_calls ({', '.join(names)}) VALUES ({marks})", values
                )
            )
        tool_call_id = int(found[0])
        if fields:
            sets = ", ".join(f"{name} = ?" for name in fields)
            db.conn.execute(
                f"UPDATE tool_calls SET {sets}, updated_at = ? WHERE id = ?",
                [*fields.values(), ts, tool_call_id],
            )
        return tool_call_id

    return store.writer.call(write)


def claim_tool_call(
    store: Store,
    conversation_id: int,
    call_id: str,
    *,
    status: str,
    decision: str,
    decided_by: str,
    now: float | None = None,
) -> bool:
    """Claim a card's answer once, across processes: the call moves from
    ``pending_approval`` to ``status`` only if it is still pending; True when this caller
    changed it (and so may act), False when another window or process answered it first."""
    ts = time.time() if now is None else now
    pid, identity = this_process()  # the claimant: a 'running' call it leaves is told apart

    def write(db: Database) -> int:
        cur = db.conn.execute(
            "UPDATE tool_calls SET status = ?, decision = ?, decided_by = ?, updated_at = ?,"
            " claimant_pid = ?, claimant = ?"
            " WHERE conversation_id = ? AND call_id = ? AND status = 'pending_approval'",
            (status, decision, decided_by, ts, pid, identity, conversation_id, call_id),
        )
        return int(cur.rowcount)

    return store.writer.call(write) == 1


def fail_orphaned_tool_calls(
    store: Store,
    conversation_id: int | None = None,
    *,
    error: str,
    error_said: dict[str, Any] | None = None,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """Mark 'failed', with ``error``, every 'running' call whose claiming process has ended
    (this host's, by pid, boot and start time): it died mid-effect and nothing will finish
    the call; it is never run again. A call with no recorded claimant (written before the
    claimant was kept) or one of another host is left as it is. Returns the calls marked,
    as they now read."""
    ts = time.time() if now is None else now
    sql = "SELECT id, claimant_pid, claimant FROM tool_calls WHERE status = 'running'"
    params: list[Any] = []
    if conversation_id is not None:
        sql += " AND conversation_id = ?"
        params.append(conversation_id)
    orphans = [
        r for r in store.query(sql, params) if claimant_gone(r["claimant_pid"], r["claimant"])
    ]
    if not orphans:
        return []
    said_json = None if error_said is None else json.dumps(error_said, ensure_ascii=False)

    def write(db: Database) -> list[int]:
        marked = []
        for row in orphans:
            # only while it still reads as that claimant's: a call finished meanwhile stays
            cur = db.conn.execute(
                "UPDATE tool_calls SET status = 'failed', error = ?, error_said_json = ?,"
                " updated_at = ? WHERE id = ? AND status = 'running' AND claimant_pid = ?"
                " AND claimant = ?",
                (error, said_json, ts, row["id"], row["claimant_pid"], row["claimant"]),
            )
            if cur.rowcount == 1:
                marked.append(int(row["id"]))
        return marked

    ids = store.writer.call(write)
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)
    rows = store.query(f"SELECT * FROM tool_calls WHERE id IN ({marks}) ORDER BY id", ids)
    return [_decode_tool_call(r) for r in rows]


def get_tool_call(store: Store, conversation_id: int, call_id: str) -> dict[str, Any] | None:
    rows = store.query(
        "SELECT * FROM tool_calls WHERE conversation_id = ? AND call_id = ?",
        [conversation_id, call_id],
    )
    return _decode_tool_call(rows[0]) if rows else None


def list_tool_calls(
    store: Store, conversation_id: int | None = None, limit: int | None = None
) -> list[dict[str, Any]]:
    """The audit, oldest first (all conversations when ``conversation_id`` is None)."""
    sql = "SELECT * FROM tool_calls"
    params: list[Any] = []
    if conversation_id is not None:
        sql += " WHERE conversation_id = ?"
        params.append(conversation_id)
    sql += " ORDER BY id"
    if limit is not None:
        sql = f"SELECT * FROM ({sql} DESC LIMIT ?) ORDER BY id"
        params.append(limit)
    return [_decode_tool_call(r) for r in store.query(sql, params)]


def list_tool_calls_with_status(store: Store, status: str) -> list[dict[str, Any]]:
    """Tool calls in one status across conversations (e.g. those waiting for approval)."""
    rows = store.query("SELECT * FROM tool_calls WHERE status = ? ORDER BY id", [status])
    return [_decode_tool_call(r) for r in rows]


def _decode_tool_call(row: dict[str, Any]) -> dict[str, Any]:
    row["args"] = json.loads(row.get("args_json") or "{}")
    raw = row.get("result_json")
    row["result"] = json.loads(raw) if raw else None
    row["from_remote"] = bool(row.get("from_remote"))
    row["flagged"] = bool(row.get("flagged"))
    for said in ("summary_said", "error_said"):
        raw = row.pop(f"{said}_json", None)
        row[said] = json.loads(raw) if raw else None
    return row


# -- allowances -------------------------------------------------------------------------------
def add_allowance(
    store: Store,
    conversation_id: int,
    cluster: str,
    tool: str,
    *,
    cluster_id: int | None = None,
    command: str | None = None,
    prefix: list[str] | None = None,
    effect: str = "exec",
    now: float | None = None,
) -> int:
    """Remember "allow ``tool`` on the cluster with id ``cluster_id`` in this conversation"
    for the exact ``command`` or the argv ``prefix`` (neither: the tool's own fixed command,
    as for tune); returns the existing allowance's id when the same one is in force."""
    ts = time.time() if now is None else now
    prefix_json = None if prefix is None else json.dumps(list(prefix), ensure_ascii=False)

    def write(db: Database) -> int:
        found = db.conn.execute(
            "SELECT id FROM agent_allowances WHERE conversation_id = ? AND cluster_id IS ?"
            " AND tool = ? AND command IS ? AND prefix_json IS ? AND revoked_at IS NULL",
            (conversation_id, cluster_id, tool, command, prefix_json),
        ).fetchone()
        if found is not None:
            return int(found[0])
        return _lastrowid(
            db.conn.execute(
                "INSERT INTO agent_allowances (conversation_id, cluster, tool, effect,"
                " created_at, cluster_id, command, prefix_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (conversation_id, cluster, tool, effect, ts, cluster_id, command, prefix_json),
            )
        )

    return store.writer.call(write)


def list_allowances(store: Store, conversation_id: int | None = None) -> list[dict[str, Any]]:
    """Allowances in force (not revoked), oldest first."""
    sql = (
        "SELECT a.id, a.conversation_id, c.title AS conversation_title, a.cluster, a.tool,"
        " a.effect, a.created_at, a.cluster_id, a.command, a.prefix_json"
        " FROM agent_allowances a"
        " JOIN conversations c ON c.id = a.conversation_id WHERE a.revoked_at IS NULL"
    )
    params: list[Any] = []
    if conversation_id is not None:
        sql += " AND a.conversation_id = ?"
        params.append(conversation_id)
    return [_decode_allowance(r) for r in store.query(sql + " ORDER BY a.id", params)]


def allowances_for(
    store: Store, conversation_id: int, cluster_id: int, tool: str
) -> list[dict[str, Any]]:
    """The allowances in force for ``tool`` on the cluster with that id in a conversation
    (each with its ``command`` or ``prefix``; the caller decides whether one covers a call)."""
    rows = store.query(
        "SELECT id, cluster, cluster_id, tool, command, prefix_json FROM agent_allowances"
        " WHERE conversation_id = ? AND cluster_id = ? AND tool = ? AND revoked_at IS NULL"
        " ORDER BY id",
        [conversation_id, cluster_id, tool],
    )
    return [_decode_allowance(r) for r in rows]


def _decode_allowance(row: dict[str, Any]) -> dict[str, Any]:
    raw = row.pop("prefix_json", None)
    row["prefix"] = json.loads(raw) if raw else None
    return row


def revoke_allowance(store: Store, allowance_id: int, *, now: float | None = None) -> bool:
    ts = time.time() if now is None else now

    def write(db: Database) -> int:
        cur = db.conn.execute(
            "UPDATE agent_allowances SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            (ts, allowance_id),
        )
        return int(cur.rowcount)

    return store.writer.call(write) > 0
