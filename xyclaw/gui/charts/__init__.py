"""Live charts for the Monitor page: the GPU heatmap, metric curves, alerts and the job box.

They read views of the telemetry's ring buffers through a ``LiveSource``
(``source.py``), pulled at the page's frame rate.
"""

from xyclaw.gui.charts.source import (
    AlertView,
    BuffersLiveSource,
    ClusterChoice,
    ClusterFrame,
    JobFeed,
    JobStatus,
    LiveSource,
    NodeSeries,
    TelemetryLiveSource,
)

__all__ = [
    "AlertView",
    "BuffersLiveSource",
    "ClusterChoice",
    "ClusterFrame",
    "JobFeed",
    "JobStatus",
    "LiveSource",
    "NodeSeries",
    "TelemetryLiveSource",
]
