"""Write the first run's pictures to docs/screenshots/: the welcome on a fresh install
(first-run.png) and the tour waiting for the user's Approve on the rent step
(tour-approve.png), from the real window on a temporary XYCLAW_HOME with the simulated
cloud and the rules agent.

    .venv/bin/python tools/tour_screenshots.py [--out docs/screenshots] [--theme light|dark]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))

from screenshots import off_thread, spin, wait_for  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--size", default="1400x900", help="window size, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = Path(tempfile.mkdtemp(prefix="xyclaw-tour-shots-"))
    os.environ["XYCLAW_HOME"] = str(home)
    os.environ["XYCLAW_SECRETS_BACKEND"] = "file"

    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.gui.app import apply_theme, build_runtime, create_app
    from xyclaw.gui.main_window import MainWindowController
    from xyclaw.gui.tour import Tour
    from xyclaw.paths import AppPaths
    from xyclaw.sim.cloud import launcher
    from xyclaw.store import Store

    app = create_app()
    apply_theme(app, args.theme)
    paths = AppPaths.from_environment()
    config = load_config(paths.config_file, environ={"XYCLAW_SIM_PROVISION_DELAY_S": "0"})
    store = Store(paths.database)  # the engine's history, handed to the agents too
    engine = build_engine(paths, config, store=store)
    runtime = None
    ctl = None
    args.out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        runtime = off_thread(app, "starting the agents", lambda: build_runtime(engine, store))
        ctl = MainWindowController(engine, runtime, tray_available=False, on_quit=lambda: None)
        ctl.window.resize(width, height)
        ctl.window.show()
        chat = ctl.chat
        wait_for(app, "the welcome", lambda: bool(chat.example_chips))
        # the status bar's first read done (not "Reading…" in the picture)
        wait_for(app, "the status bar", lambda: ctl.status.snapshot is not None)
        spin(app, 1.0)
        path = args.out / "first-run.png"
        ctl.window.grab().save(str(path))
        written.append(path)

        tour = ctl.tour
        assert isinstance(tour, Tour)
        tour.start()
        wait_for(app, "the plan", lambda: tour.state == "done")
        tour.next()
        wait_for(app, "the approval card", lambda: tour.state == "approve")
        spin(app, 1.0)
        card = next(iter(chat.approval_cards.values()))
        chat.scroll.ensureWidgetVisible(card, 0, 20)
        spin(app, 0.5)
        path = args.out / "tour-approve.png"
        ctl.window.grab().save(str(path))
        written.append(path)
        tour.skip()
    finally:
        if ctl is not None:
            ctl.quit_now()
        try:
            for live in engine.clusters():
                engine.down(live.name).result(120)
        finally:
            if runtime is not None:
                runtime.close()
            engine.close()
            launcher.stop(paths.data_dir / "sim")
            shutil.rmtree(home, ignore_errors=True)
    for path in written:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
