"""A XyClaw app process for the crash test: launches a job, prints its id, follows it until
it is killed. ``python -m tests.jobs_runtime.app_child SPEC CLUSTER`` (XYCLAW_HOME set)."""

from __future__ import annotations

import sys
import time

from tests.jobs_runtime.conftest import make_engine


def main() -> None:
    engine = make_engine()
    job = engine.launch(sys.argv[1], cluster=sys.argv[2]).result(60)
    print(job.id, flush=True)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
