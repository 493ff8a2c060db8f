"""Numbered schema migrations; ``PRAGMA user_version`` records the last one applied.

A migration is only ever appended, never edited once released: an older
database is brought forward by running the ones it lacks, in order.
Amounts of money are integer micro-units (1e-6 of the currency); times are
UTC epoch seconds (REAL) except samples, which use integer milliseconds.

Each entry of :data:`MIGRATIONS` carries its version number, written out, so two
branches that each append one cannot both land quietly as "the next one": both
claim the same number, and ``tests/foundation/test_migrations.py`` (versions
1, 2, 3, ... in order, names unique, each function named ``_m<version>_<name>``)
fails until one is renumbered. The rule for parallel branches (docs/store.md):

- add yours as the next number after the last one on your base, at the end;
- when you rebase or merge and someone else's landed first, renumber yours to
  follow theirs (the entry, its function's name, any text that names the number);
- never edit, reorder or renumber a migration that has landed on main: databases
  out there are at that version already. Fix forward with a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded by database.migrate, only when a schema is behind
    import sqlite_utils

Apply = Callable[["sqlite_utils.Database"], None]


@dataclass(frozen=True)
class Migration:
    """One step of the schema: ``version`` is the ``PRAGMA user_version`` it leaves behind.

    Called with the database it applies itself (``database.migrate`` runs
    ``MIGRATIONS[version - 1](db)`` inside its own transaction).
    """

    version: int
    name: str
    apply: Apply

    def __call__(self, db: sqlite_utils.Database) -> None:
        self.apply(db)


def _m1_core(db: sqlite_utils.Database) -> None:
    """Providers, clusters, nodes, jobs, attempts, events and the billing ledger."""
    db.execute(
        """
        CREATE TABLE providers (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            settings_json TEXT NOT NULL DEFAULT '{}',
            created_at REAL NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE clusters (
            id INTEGER PRIMARY KEY,
            provider_id TEXT NOT NULL REFERENCES providers(id),
            external_id TEXT,
            name TEXT NOT NULL,
            state TEXT NOT NULL,
            gpu TEXT NOT NULL,
            gpu_count INTEGER NOT NULL,
            gpus_per_node INTEGER NOT NULL,
            fabric TEXT NOT NULL,
            region TEXT,
            currency TEXT NOT NULL,
            price_per_gpu_hour_micros INTEGER NOT NULL,
            budget_micros INTEGER,
            idempotency_key TEXT UNIQUE,
            keep_partial INTEGER NOT NULL DEFAULT 0,
            image TEXT,
            error TEXT,
            worker_pid INTEGER,
            budget_warned_at REAL,
            created_at REAL NOT NULL,
            ready_at REAL,
            release_requested_at REAL,
            released_at REAL,
            last_seen_at REAL
        )"""
    )
    db.execute("CREATE INDEX clusters_state ON clusters(state)")
    db.execute(
        """
        CREATE TABLE nodes (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
            external_id TEXT,
            rank INTEGER NOT NULL,
            hostname TEXT,
            ssh_host TEXT,
            ssh_port INTEGER,
            ssh_user TEXT,
            host_key TEXT,
            state TEXT NOT NULL,
            error TEXT,
            created_at REAL NOT NULL,
            running_at REAL,
            terminated_at REAL,
            UNIQUE (cluster_id, rank)
        )"""
    )
    db.execute(
        """
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER REFERENCES clusters(id),
            name TEXT NOT NULL,
            spec_json TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at REAL NOT NULL,
            started_at REAL,
            ended_at REAL,
            exit_code INTEGER
        )"""
    )
    db.execute(
        """
        CREATE TABLE job_attempts (
            id INTEGER PRIMARY KEY,
            job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            cluster_id INTEGER REFERENCES clusters(id),
            state TEXT NOT NULL,
            started_at REAL,
            ended_at REAL,
            exit_code INTEGER,
            resumed_from TEXT,
            UNIQUE (job_id, attempt)
        )"""
    )
    db.execute(
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,
            kind TEXT NOT NULL,
            severity TEXT NOT NULL,
            cluster_id INTEGER REFERENCES clusters(id),
            node_id INTEGER REFERENCES nodes(id),
            job_id INTEGER REFERENCES jobs(id),
            rule TEXT,
            message TEXT NOT NULL,
            data_json TEXT NOT NULL DEFAULT '{}',
            cleared_at REAL
        )"""
    )
    db.execute("CREATE INDEX events_ts ON events(ts)")
    db.execute("CREATE INDEX events_cluster ON events(cluster_id, ts)")
    db.execute(
        """
        CREATE TABLE charges (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            job_id INTEGER REFERENCES jobs(id),
            source TEXT NOT NULL CHECK (source IN ('meter', 'provider')),
            start_ts REAL NOT NULL,
            end_ts REAL NOT NULL,
            amount_micros INTEGER NOT NULL,
            currency TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX charges_cluster ON charges(cluster_id, end_ts)")


def _m2_telemetry(db: sqlite_utils.Database) -> None:
    """GPU and NIC samples and their one-minute rollups.

    A sample row holds one node's samples over a span of up to two minutes
    (the telemetry writer batches them): ``times`` are uint32 offsets in ms
    from ``start_ms``, ``counts`` the uint8 number of records at each instant,
    ``data`` the packed records (see :mod:`xyclaw.store.samples`). Sample rows
    carry no foreign keys: they arrive at the highest rate, and clusters are
    never deleted.
    """
    for table in ("gpu_samples", "nic_samples"):
        db.execute(
            f"""
            CREATE TABLE {table} (
                id INTEGER PRIMARY KEY,
                cluster_id INTEGER NOT NULL,
                node_id INTEGER NOT NULL,
                start_ms INTEGER NOT NULL,
                end_ms INTEGER NOT NULL,
                instants INTEGER NOT NULL,
                times BLOB NOT NULL,
                counts BLOB NOT NULL,
                data BLOB NOT NULL
            )"""
        )
        db.execute(f"CREATE UNIQUE INDEX {table}_span ON {table}(cluster_id, start_ms, node_id)")
    db.execute(
        """
        CREATE TABLE metric_rollups (
            cluster_id INTEGER NOT NULL,
            node_id INTEGER NOT NULL,
            gpu INTEGER NOT NULL,
            metric TEXT NOT NULL,
            minute_ts INTEGER NOT NULL,
            mean REAL NOT NULL,
            max REAL NOT NULL,
            samples INTEGER NOT NULL,
            PRIMARY KEY (cluster_id, metric, minute_ts, node_id, gpu)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """
        CREATE TABLE telemetry_gaps (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            node_id INTEGER REFERENCES nodes(id),
            start_ts REAL NOT NULL,
            end_ts REAL,
            reason TEXT NOT NULL
        )"""
    )


def _m3_agents(db: sqlite_utils.Database) -> None:
    """Conversations, their messages and tool calls, and the plans shown to the user."""
    db.execute(
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            brain TEXT NOT NULL,
            created_at REAL NOT NULL,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            model_cost_micros INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            ts REAL NOT NULL,
            role TEXT NOT NULL,
            agent TEXT,
            content TEXT NOT NULL,
            tokens INTEGER
        )"""
    )
    db.execute("CREATE INDEX messages_conversation ON messages(conversation_id, ts)")
    db.execute(
        """
        CREATE TABLE tool_calls (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            message_id INTEGER REFERENCES messages(id),
            ts REAL NOT NULL,
            tool TEXT NOT NULL,
            effect TEXT NOT NULL CHECK (effect IN ('read', 'spend', 'destroy', 'exec')),
            args_json TEXT NOT NULL,
            decision TEXT,
            result_json TEXT,
            error TEXT
        )"""
    )
    db.execute(
        """
        CREATE TABLE plans (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER REFERENCES conversations(id),
            ts REAL NOT NULL,
            request_json TEXT NOT NULL,
            result_json TEXT NOT NULL,
            chosen_option INTEGER
        )"""
    )


def _m4_tuning(db: sqlite_utils.Database) -> None:
    """Network tuning: fabric probes, NCCL settings with a reason per variable, nccl-tests runs.

    A settings row is one version of a cluster's NCCL environment; the newest
    ``applied`` one is what jobs there get. A run row keeps the figures of one
    nccl-tests run (``rows_json``: every message size, as parsed).
    """
    db.execute(
        """
        CREATE TABLE fabric_reports (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            probed_at REAL NOT NULL,
            fabric TEXT NOT NULL,
            transport TEXT NOT NULL,
            nodes INTEGER NOT NULL,
            gpus_per_node INTEGER NOT NULL,
            nic_count INTEGER NOT NULL,
            active_nic_count INTEGER NOT NULL,
            nic_rate_gbps REAL,
            roce_gid_index INTEGER,
            findings_json TEXT NOT NULL DEFAULT '[]',
            report_json TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX fabric_reports_cluster ON fabric_reports(cluster_id, probed_at)")
    db.execute(
        """
        CREATE TABLE nccl_settings (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            report_id INTEGER REFERENCES fabric_reports(id),
            created_at REAL NOT NULL,
            source TEXT NOT NULL,
            applied INTEGER NOT NULL DEFAULT 0,
            summary TEXT NOT NULL DEFAULT '',
            notes_json TEXT NOT NULL DEFAULT '[]',
            verdict_json TEXT
        )"""
    )
    db.execute("CREATE INDEX nccl_settings_cluster ON nccl_settings(cluster_id, applied, id)")
    db.execute(
        """
        CREATE TABLE nccl_setting_vars (
            settings_id INTEGER NOT NULL REFERENCES nccl_settings(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (settings_id, name)
        )"""
    )
    db.execute(
        """
        CREATE TABLE nccl_test_runs (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            report_id INTEGER REFERENCES fabric_reports(id),
            ts REAL NOT NULL,
            phase TEXT NOT NULL,
            command TEXT NOT NULL,
            env_json TEXT NOT NULL,
            exit_code INTEGER,
            error TEXT,
            collective TEXT,
            n_ranks INTEGER,
            n_nodes INTEGER,
            min_bytes INTEGER,
            max_bytes INTEGER,
            peak_busbw REAL,
            avg_busbw REAL,
            avg_busbw_recomputed REAL,
            transport TEXT,
            socket_fallback INTEGER NOT NULL DEFAULT 0,
            truncated INTEGER NOT NULL DEFAULT 0,
            duration_s REAL,
            rows_json TEXT NOT NULL DEFAULT '[]'
        )"""
    )
    db.execute("CREATE INDEX nccl_test_runs_cluster ON nccl_test_runs(cluster_id, ts)")


def _m5_agent_audit(db: sqlite_utils.Database) -> None:
    """What the agent runtime needs beyond migration 3: the full tool-call audit, per-message
    tokens and cost, reasoning kept apart from the answer, and remembered allowances.

    ``tool_calls.call_id`` is the model's id for the call (unique within a conversation) so
    that a step re-run after a restart updates its row instead of adding a second one.
    ``agent_allowances`` are the user's "remember" answers: exec/tune on one cluster for one
    conversation, until revoked.
    """
    for sql in (
        "ALTER TABLE conversations ADD COLUMN updated_at REAL",
        "ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'",
        "ALTER TABLE conversations ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD'",
        "ALTER TABLE messages ADD COLUMN reasoning TEXT",
        "ALTER TABLE messages ADD COLUMN tokens_in INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN tokens_out INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN tool_call_id INTEGER REFERENCES tool_calls(id)",
        "ALTER TABLE messages ADD COLUMN data_json TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE tool_calls ADD COLUMN call_id TEXT",
        "ALTER TABLE tool_calls ADD COLUMN agent TEXT",
        "ALTER TABLE tool_calls ADD COLUMN status TEXT NOT NULL DEFAULT 'running'",
        "ALTER TABLE tool_calls ADD COLUMN decided_by TEXT",
        "ALTER TABLE tool_calls ADD COLUMN duration_s REAL",
        "ALTER TABLE tool_calls ADD COLUMN summary TEXT",
        "ALTER TABLE tool_calls ADD COLUMN from_remote INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tool_calls ADD COLUMN flagged INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tool_calls ADD COLUMN updated_at REAL",
    ):
        db.execute(sql)
    db.execute("CREATE UNIQUE INDEX tool_calls_call ON tool_calls(conversation_id, call_id)")
    db.execute("CREATE INDEX tool_calls_ts ON tool_calls(ts)")
    db.execute("CREATE INDEX messages_ts ON messages(ts)")
    db.execute(
        """
        CREATE TABLE agent_allowances (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            cluster TEXT NOT NULL,
            tool TEXT NOT NULL,
            effect TEXT NOT NULL CHECK (effect IN ('exec')),
            created_at REAL NOT NULL,
            revoked_at REAL
        )"""
    )
    db.execute("CREATE INDEX agent_allowances_conversation ON agent_allowances(conversation_id)")


def _m6_job_runtime(db: sqlite_utils.Database) -> None:
    """The job runtime: why each attempt ended and on which nodes, the follower's lease,
    the stored log lines with their node, rank, attempt and byte offset, the offsets a
    reconnect resumes from (written in the same transaction as the lines), and the
    metrics series of each job for the history's charts."""
    for column in (
        "kind TEXT NOT NULL DEFAULT 'train'",
        "attempt INTEGER NOT NULL DEFAULT 1",
        "cause TEXT",
        "error TEXT",
        "rented_cluster INTEGER NOT NULL DEFAULT 0",
        "service_url TEXT",
        "cancel_requested_at REAL",
        "follower TEXT",
        "follower_seen REAL",
        "progress_json TEXT NOT NULL DEFAULT '{}'",
        "log_lines INTEGER NOT NULL DEFAULT 0",
        "log_cut_lines INTEGER NOT NULL DEFAULT 0",
        "log_cut_after INTEGER",
        "updated_at REAL",
    ):
        db.execute(f"ALTER TABLE jobs ADD COLUMN {column}")
    for column in (
        "cause TEXT",
        "message TEXT",
        "resume_step INTEGER",
        "nodes_json TEXT NOT NULL DEFAULT '[]'",
    ):
        db.execute(f"ALTER TABLE job_attempts ADD COLUMN {column}")
    db.execute("CREATE INDEX jobs_state ON jobs(state)")
    db.execute(
        """
        CREATE TABLE job_logs (
            id INTEGER PRIMARY KEY,
            job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            stream TEXT NOT NULL,
            node_rank INTEGER NOT NULL,
            node TEXT NOT NULL,
            rank INTEGER,
            offset INTEGER NOT NULL,
            ts REAL NOT NULL,
            text TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX job_logs_job ON job_logs(job_id, id)")
    db.execute(
        """
        CREATE TABLE job_log_offsets (
            job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            stream TEXT NOT NULL,
            node_rank INTEGER NOT NULL,
            offset INTEGER NOT NULL DEFAULT 0,
            lines INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (job_id, attempt, stream, node_rank)
        ) WITHOUT ROWID"""
    )
    db.execute(
        """
        CREATE TABLE job_metrics (
            job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            ts REAL NOT NULL,
            step INTEGER,
            total_steps INTEGER,
            loss REAL,
            learning_rate REAL,
            grad_norm REAL,
            tokens_per_s REAL,
            samples_per_s REAL,
            epoch REAL
        )"""
    )
    db.execute("CREATE INDEX job_metrics_job ON job_metrics(job_id, ts)")


def _m7_worded_messages(db: sqlite_utils.Database) -> None:
    """The key and figures (``xyclaw.wording.Said.to_json``) beside a stored English message,
    so a view words it in its own language: an attempt's end and a cluster's error."""
    db.execute("ALTER TABLE job_attempts ADD COLUMN message_said_json TEXT")
    db.execute("ALTER TABLE clusters ADD COLUMN error_said_json TEXT")


def _m8_worded_job_error(db: sqlite_utils.Database) -> None:
    """The key and figures beside a job's English ``error`` (why it failed, was cancelled or
    is recovering), as migration 7 keeps them beside an attempt's end."""
    db.execute("ALTER TABLE jobs ADD COLUMN error_said_json TEXT")


def _m9_worded_tool_calls(db: sqlite_utils.Database) -> None:
    """A tool call's summary and error as said (``Said.to_json``) beside their English, so a
    reopened conversation's tool cards are worded in the window's language."""
    db.execute("ALTER TABLE tool_calls ADD COLUMN summary_said_json TEXT")
    db.execute("ALTER TABLE tool_calls ADD COLUMN error_said_json TEXT")


def _m10_worded_node_error(db: sqlite_utils.Database) -> None:
    """The key and figures beside a node's English ``error`` (its SSH or bootstrap failure),
    so the Clusters page words it in the window's language after a restart too."""
    db.execute("ALTER TABLE nodes ADD COLUMN error_said_json TEXT")


def _m11_bound_approvals(db: sqlite_utils.Database) -> None:
    """Issue 25 (bound approvals): the digest of the Action a tool call's card showed, and
    exec allowances bound to a cluster's id and an exact command or an argv prefix (an
    allowance from before, with neither, covers nothing and asks again)."""
    db.execute("ALTER TABLE tool_calls ADD COLUMN digest TEXT")
    db.execute("ALTER TABLE agent_allowances ADD COLUMN cluster_id INTEGER")
    db.execute("ALTER TABLE agent_allowances ADD COLUMN command TEXT")
    db.execute("ALTER TABLE agent_allowances ADD COLUMN prefix_json TEXT")


def _m12_node_clock_offset(db: sqlite_utils.Database) -> None:
    """Issue 27: each node's clock offset (its clock minus this machine's, in seconds),
    measured at bootstrap, so a job's end read from the node's exit record is placed on this
    machine's clock."""
    db.execute("ALTER TABLE nodes ADD COLUMN clock_offset_s REAL")


def _m13_tool_call_claimant(db: sqlite_utils.Database) -> None:
    """Issue 25: which process set a tool call 'running' (its pid, and the host, boot and
    start time that tell it from a later process with the same pid), so that a call whose
    process died mid-effect is marked as stopped instead of staying 'running' forever."""
    db.execute("ALTER TABLE tool_calls ADD COLUMN claimant_pid INTEGER")
    db.execute("ALTER TABLE tool_calls ADD COLUMN claimant TEXT")


def _m14_split_gpu_samples(db: sqlite_utils.Database) -> None:
    """Issue 35: how a sample row's ``data`` is laid out (0 = the records whole, as every
    row before; 1 = a GPU row's moving fields per sample in ``data`` and its still fields
    once per card in ``still``, see :mod:`xyclaw.store.samples`). Old rows keep 0 and are
    read as before; adding a column with a constant default rewrites no row."""
    for table in ("gpu_samples", "nic_samples"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN encoding INTEGER NOT NULL DEFAULT 0")
        db.execute(f"ALTER TABLE {table} ADD COLUMN still BLOB")


def _m15_dcgm_samples(db: sqlite_utils.Database) -> None:
    """DCGM's profiling ratios (SM, tensor pipe, DRAM active) beside the GPU samples, in the
    same row layout (issue 34), its rows always whole (``encoding`` 0): kept in the history
    so a run's honest utilization can be looked at after it ended."""
    db.execute(
        """
        CREATE TABLE dcgm_samples (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL,
            node_id INTEGER NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            instants INTEGER NOT NULL,
            times BLOB NOT NULL,
            counts BLOB NOT NULL,
            data BLOB NOT NULL,
            encoding INTEGER NOT NULL DEFAULT 0,
            still BLOB
        )"""
    )
    db.execute(
        "CREATE UNIQUE INDEX dcgm_samples_span ON dcgm_samples(cluster_id, start_ms, node_id)"
    )


def _m16_cluster_host(db: sqlite_utils.Database) -> None:
    """Issue 31: the host a marketplace cluster was rented on, as the approved quote named it
    ("community host, reliability 0.97"), and whether it is a community host, run by someone
    the provider does not vouch for, so every list of clusters can say so. Old rows: NULL
    and 0, as nothing was known."""
    db.execute("ALTER TABLE clusters ADD COLUMN host TEXT")
    db.execute("ALTER TABLE clusters ADD COLUMN host_community INTEGER NOT NULL DEFAULT 0")


def _m17_node_private_ip(db: sqlite_utils.Database) -> None:
    """Issue 31: a node's address on its cluster's private network, where the provider gives
    one (a RunPod Instant Cluster's ``clusterIp``): the address its peers reach it at, so a
    job's MASTER_ADDR is on that network, not on the management interface."""
    db.execute("ALTER TABLE nodes ADD COLUMN private_ip TEXT")


def _m18_cluster_unlisted_since(db: sqlite_utils.Database) -> None:
    """Issue 31: when a provider's readable listing first lacked a cluster XyClaw believes
    billing. Such a cluster is not marked gone: it stays live and metered and the user is
    asked whether to forget it; the column is cleared when the listing shows it again.

    And charges of two more sources: ``bandwidth``, the traffic a provider bills per GB
    (Vast), read from the instance's own counters; ``storage``, the disk a stopped instance
    still bills (Vast: ``storage_total_cost`` per hour) while its GPU time has stopped.
    SQLite cannot change a CHECK in place, so the charges table is rebuilt with its rows,
    ids and index."""
    db.execute("ALTER TABLE clusters ADD COLUMN unlisted_since REAL")
    db.execute(
        """
        CREATE TABLE charges_new (
            id INTEGER PRIMARY KEY,
            cluster_id INTEGER NOT NULL REFERENCES clusters(id),
            job_id INTEGER REFERENCES jobs(id),
            source TEXT NOT NULL CHECK (source IN ('meter', 'provider', 'bandwidth', 'storage')),
            start_ts REAL NOT NULL,
            end_ts REAL NOT NULL,
            amount_micros INTEGER NOT NULL,
            currency TEXT NOT NULL
        )"""
    )
    db.execute(
        "INSERT INTO charges_new (id, cluster_id, job_id, source, start_ts, end_ts,"
        " amount_micros, currency) SELECT id, cluster_id, job_id, source, start_ts, end_ts,"
        " amount_micros, currency FROM charges"
    )
    db.execute("DROP TABLE charges")
    db.execute("ALTER TABLE charges_new RENAME TO charges")
    db.execute("CREATE INDEX charges_cluster ON charges(cluster_id, end_ts)")


def _m19_gpu_sample_util(db: sqlite_utils.Database) -> None:
    """Issue 35: a SPLIT GPU row's utilization bytes apart from its other moving bytes, which
    then fill whole 2-byte words of the record and are read back with aligned 2-byte copies
    (an hour's read near reading the rows whole). Rows written before keep NULL here and
    their encoding (0 or 1), and read as before."""
    db.execute("ALTER TABLE gpu_samples ADD COLUMN util BLOB")


def _m20_grouped_gpu_samples(db: sqlite_utils.Database) -> None:
    """Issue 35: GPU rows of several nodes (encoding 3, :mod:`xyclaw.store.samples`), with
    ``nodes`` the directory of the nodes in each, so that reading an hour fetches a few
    hundred rows instead of one per node and flush. Rows written before keep NULL here and
    read as before.

    The span index no longer forbids two rows of one (cluster, start, node): a row of several
    nodes is keyed by its earliest, and a sample delivered twice must not replace (delete)
    the other nodes' samples of a row written before. A duplicate is kept; nothing is lost."""
    db.execute("ALTER TABLE gpu_samples ADD COLUMN nodes BLOB")
    db.execute("DROP INDEX gpu_samples_span")
    db.execute("CREATE INDEX gpu_samples_span ON gpu_samples(cluster_id, start_ms, node_id)")


# Append only, with the next number (see the rule above); the version is the position + 1.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "core", _m1_core),
    Migration(2, "telemetry", _m2_telemetry),
    Migration(3, "agents", _m3_agents),
    Migration(4, "tuning", _m4_tuning),
    Migration(5, "agent_audit", _m5_agent_audit),
    Migration(6, "job_runtime", _m6_job_runtime),
    Migration(7, "worded_messages", _m7_worded_messages),
    Migration(8, "worded_job_error", _m8_worded_job_error),
    Migration(9, "worded_tool_calls", _m9_worded_tool_calls),
    Migration(10, "worded_node_error", _m10_worded_node_error),
    Migration(11, "bound_approvals", _m11_bound_approvals),
    Migration(12, "node_clock_offset", _m12_node_clock_offset),
    Migration(13, "tool_call_claimant", _m13_tool_call_claimant),
    Migration(14, "split_gpu_samples", _m14_split_gpu_samples),
    Migration(15, "dcgm_samples", _m15_dcgm_samples),
    Migration(16, "cluster_host", _m16_cluster_host),
    Migration(17, "node_private_ip", _m17_node_private_ip),
    Migration(18, "cluster_unlisted_since", _m18_cluster_unlisted_since),
    Migration(19, "gpu_sample_util", _m19_gpu_sample_util),
    Migration(20, "grouped_gpu_samples", _m20_grouped_gpu_samples),
)
LATEST_VERSION = MIGRATIONS[-1].version
