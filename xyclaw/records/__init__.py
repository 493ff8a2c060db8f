"""The domain model every part shares: clusters, nodes (and jobs) and their states."""

from xyclaw.records.clusters import ClusterRecord, ClusterStore, NodeRecord
from xyclaw.records.jobs import AttemptRecord, JobRecord, JobState, JobStore, LogLine
from xyclaw.records.provider_view import ClusterInfo, NodeInfo
from xyclaw.records.states import IN_FLIGHT, LIVE, ClusterState, NodeState

__all__ = [
    "IN_FLIGHT",
    "LIVE",
    "AttemptRecord",
    "ClusterInfo",
    "ClusterRecord",
    "ClusterState",
    "ClusterStore",
    "JobRecord",
    "JobState",
    "JobStore",
    "LogLine",
    "NodeInfo",
    "NodeRecord",
    "NodeState",
]
