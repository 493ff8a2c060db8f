"""Job specs as a face reads them: a file (XyClaw's form or a SkyPilot task) into a checked
:class:`~xyclaw.jobs.spec.JobSpec` and its warnings, or a ``SpecError`` naming the line.

The Engine's own door to ``xyclaw.jobs``' loader (issue 35): the launch dialog reads a file
before any Engine call is made, on a worker, and needs no Engine state to do it; the
Engine's launch methods read the same file with the same function.
"""

from __future__ import annotations

from xyclaw.jobs.spec import LoadedSpec, load_spec
from xyclaw.jobs.specyaml import SpecError

__all__ = ["LoadedSpec", "SpecError", "load_spec"]
