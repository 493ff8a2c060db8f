"""Write a PNG of every page of the desktop app, with real content, to docs/screenshots/.

The app runs on a temporary XYCLAW_HOME against the simulated cloud with the
rules brain: a 2-node cluster is rented and trains (so Clusters and Monitor
have something live) and runs the bundled ``plain-python`` sample as a job,
5000 steps instead of its 200 so that it still runs when the pages are drawn
(the Monitor's job box shows its step, loss and ETA), and a chat asks for a
plan and stops at the approval card of "rent option 1". Then each page is
drawn and saved, as a user would see it. Nothing of the user's own data is touched.

    .venv/bin/python tools/screenshots.py [--out docs/screenshots] [--theme light|dark]

Chinese text needs a CJK font on the machine (Debian: fonts-wqy-microhei).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")
REQUEST = "LoRA fine-tune a 13B model on 8 GPUs, budget 500"
TRAIN = (
    "printf '# sim: demo\\n' > /train.py; "
    "nohup torchrun --nnodes 1 --nproc_per_node 8 /train.py --model 7b --lora "
    "--max_steps 100000 --logging_steps 1 > /tmp/train.log 2>&1 &"
)


def spin(app: Any, seconds: float) -> None:
    """Let the event loop run (timers, queued signals, painting) for a while."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait_for(app: Any, what: str, done: Callable[[], bool], timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise SystemExit(f"screenshots: timed out waiting for {what}")
        spin(app, 0.05)


def off_thread(app: Any, what: str, fn: Callable[[], T], timeout: float = 300.0) -> T:
    """Run a blocking call on a thread while the window keeps drawing."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, name=what, daemon=True)
    thread.start()
    wait_for(app, what, lambda: not thread.is_alive(), timeout)
    if "error" in box:
        raise SystemExit(f"screenshots: {what} failed: {box['error']}")
    return box["value"]  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--size", default="1400x900", help="window size, WIDTHxHEIGHT")
    parser.add_argument("--settle", type=float, default=40.0, help="seconds of live samples")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))

    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = Path(tempfile.mkdtemp(prefix="xyclaw-shots-"))
    os.environ["XYCLAW_HOME"] = str(home)
    os.environ["XYCLAW_SECRETS_BACKEND"] = "file"
    sys.path.insert(0, str(ROOT))

    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.engine.lifecycle import UpRequest
    from xyclaw.gui.app import apply_theme, build_runtime, create_app
    from xyclaw.gui.chat.approval import ApprovalCard
    from xyclaw.gui.chat.blocks import PlanCard
    from xyclaw.gui.main_window import MainWindowController
    from xyclaw.gui.pages import PAGES
    from xyclaw.jobs.spec import parse_spec
    from xyclaw.paths import AppPaths, bundled
    from xyclaw.sim.cloud import launcher
    from xyclaw.store import Store

    app = create_app()
    apply_theme(app, args.theme)
    paths = AppPaths.from_environment()
    # One minute of live window, so the charts fill while the tool waits.
    config = load_config(
        paths.config_file,
        environ={"XYCLAW_SIM_PROVISION_DELAY_S": "0", "XYCLAW_TELEMETRY_LIVE_WINDOW_MINUTES": "1"},
    )
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
        spin(app, 0.5)

        # A 2-node cluster that trains: the Clusters and Monitor pages have live data.
        quote = off_thread(
            app,
            "a quote",
            lambda: engine.quote_request(UpRequest(provider="sim", gpu="A800", gpu_count=16)),
        )
        cluster = off_thread(app, "renting", lambda: engine.up(quote).result(300))
        off_thread(app, "starting training", lambda: engine.exec(cluster.name, TRAIN))
        # The plain sample as a job on it, long enough to be running in the shots (its own
        # 200 steps end first): the Monitor page's job box shows its step, loss and ETA.
        sample = bundled("resources") / "examples" / "plain-python.yaml"
        text = sample.read_text(encoding="utf-8").replace("--max_steps 200", "--max_steps 5000")
        spec = parse_spec(text, file=str(sample), base_dir=sample.parent)
        job = off_thread(app, "launching", lambda: engine.launch(spec, cluster=cluster.name))
        off_thread(app, "the job starting", lambda: job.result(300))

        # A chat with a plan and an approval card waiting.
        chat = ctl.chat
        wait_for(app, "the conversation list", lambda: not chat.busy and chat.runtime is not None)
        chat.send(REQUEST)
        wait_for(app, "the plan", lambda: bool(chat.plan_cards) and not chat.busy)
        chat.send("rent option 1")
        wait_for(app, "the approval card", lambda: bool(chat.approval_cards) and not chat.busy)
        spin(app, args.settle)  # samples for the heatmap and curves

        for info in PAGES:
            ctl.show_page(info.key)
            # The operations panel where the cluster's renting shows; elsewhere the page.
            ctl.operations_dock.setVisible(info.key == "clusters")
            spin(app, 1.5)
            if info.key == "jobs":  # the running job's detail: progress, charts, its log
                jobs = ctl.page_widgets["jobs"]
                wait_for(app, "the job listed", lambda page=jobs: bool(page.records))
                jobs.select_job(jobs.records[0].id)
                wait_for(
                    app,
                    "the job's log",
                    lambda page=jobs: page.detail is not None and bool(page.lines),
                )
                spin(app, 1.5)
            if info.key == "chat":
                card: ApprovalCard = next(iter(chat.approval_cards.values()))
                plan: PlanCard = chat.plan_cards[-1]
                chat.scroll.ensureWidgetVisible(plan, 0, 0)
                chat.scroll.ensureWidgetVisible(card, 0, 20)
                spin(app, 0.5)
            path = args.out / f"{info.key}.png"
            if not ctl.window.grab().save(str(path)):
                raise SystemExit(f"screenshots: could not write {path}")
            written.append(path)
            if info.key == "chat":  # and the plan's comparison table from its top
                chat.scroll.verticalScrollBar().setValue(plan.y() - 8)
                spin(app, 0.5)
                path = args.out / "chat-plan.png"
                ctl.window.grab().save(str(path))
                written.append(path)
        # The README's picture: the chat with its approval card waiting.
        shutil.copyfile(args.out / "chat.png", args.out / "main-window.png")
        written.append(args.out / "main-window.png")
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
    sys.exit(main())
