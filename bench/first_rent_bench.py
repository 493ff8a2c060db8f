"""First rentals in new data folders with the background guard starting beside each (issue 23).

Each rental: a new data folder, ``xyclaw guard run --background`` and ``xyclaw up --gpu A800
--gpus 8 --yes`` started in the same moment on the simulated cloud (its real provisioning
delay unless ``--provision-delay``), then ``down``, and the guard and the cloud stopped.

Bar (issue 23): 20 first rentals, 20 ready. ``--smoke``: one rental with a 1 s delay.
Prints one JSON object as its last line: rentals, ready, seconds (median, max), failures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.concurrency.first_rent import first_rental


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rentals", type=int, default=20)
    parser.add_argument("--provision-delay", type=float, default=None, help="seconds (sim's own)")
    parser.add_argument("--smoke", action="store_true", help="one rental, 1 s provisioning")
    args = parser.parse_args(argv)
    rentals, delay = (1, 1.0) if args.smoke else (args.rentals, args.provision_delay)
    outcomes = []
    for i in range(rentals):
        with tempfile.TemporaryDirectory(prefix="xyclaw-first-rent-") as tmp:
            outcome = first_rental(Path(tmp) / "home", provision_delay_s=delay)
        outcomes.append(outcome)
        print(json.dumps({"rental": i + 1, **outcome.__dict__}), flush=True)
    seconds = [o.seconds for o in outcomes]
    result = {
        "rentals": rentals,
        "ready": sum(o.ready for o in outcomes),
        "seconds_median": round(statistics.median(seconds), 1),
        "seconds_max": max(seconds),
        "failures": [o.detail for o in outcomes if not o.ready][:10],
    }
    print(json.dumps(result))
    return 0 if result["ready"] == rentals else 1


if __name__ == "__main__":
    sys.exit(main())
