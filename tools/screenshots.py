"""Write a PNG of every page of the desktop app, with real content, to docs/screenshots/,
in English and 简体中文, light and dark.

Two parts, each on its own temporary XYCLAW_HOME (nothing of the user's own data is touched):

* ``live``: the app against the simulated cloud with the rules brain: a 2-node cluster is
  rented and trains (so Clusters and Monitor have something live) and runs the bundled
  ``plain-python`` sample as a job, 5000 steps instead of its 200 so that it still runs
  when the pages are drawn (the Monitor's job box and the Jobs page show its step, loss
  and ETA), and a chat asks for a plan and stops at the approval card of "rent option 1".
  Every page is drawn in each language and theme: ``<page>-<en|zh>-<light|dark>.png``
  (``<page>.png`` is the English light one, the README's).
* ``history``: a real run on the simulated cloud (a 2-node cluster rented, tuned, two jobs
  of which one is recovered, released; see tests/gui_history/history_run.py), then the
  window on it with no provider reachable, as on a train: the History page's replay,
  timeline and comparison and the Settings tabs, ``history-*-<tag>.png``,
  ``settings-*-<tag>.png``.

    .venv/bin/python tools/screenshots.py [--out docs/screenshots] [--part live|history|all]

The first run's pictures (welcome, tour) are tools/tour_screenshots.py's. Chinese text
needs a CJK font on the machine (Debian: fonts-wqy-microhei).
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
#: The Chinese pictures show the conversation a Chinese-speaking user has (the agents answer
#: in the language of the request, whatever the window's language).
REQUESTS = {
    "en": (REQUEST, "rent option 1"),
    "zh_CN": ("用 8 张卡 LoRA 微调一个 13B 模型，预算 500 元", "租第一个"),
}
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
    parser.add_argument("--size", default="1400x900", help="window size, WIDTHxHEIGHT")
    parser.add_argument("--settle", type=float, default=40.0, help="seconds of live samples")
    parser.add_argument("--part", choices=("live", "history", "all"), default="all")
    args = parser.parse_args(argv)
    written: list[Path] = []
    if args.part in ("live", "all"):
        written += live_pages(args)
    if args.part in ("history", "all"):
        written += history_pages(args)
    for path in written:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


#: (language setting, file tag) of every shot, English light first (the unsuffixed copies).
LANGUAGES = (("en", "en"), ("zh_CN", "zh"))
THEMES = ("light", "dark")


def live_pages(args: argparse.Namespace) -> list[Path]:
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
    from xyclaw.gui import i18n
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
    apply_theme(app, "light")
    i18n.install("en")
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
        started = off_thread(app, "the job starting", lambda: job.result(300))

        # A chat with a plan and an approval card waiting (a new one for each language).
        chat = ctl.chat
        wait_for(app, "the conversation list", lambda: not chat.busy and chat.runtime is not None)

        def converse(language: str) -> None:
            request, rent = REQUESTS[language]
            if chat.current is not None:
                before = chat.current
                chat.new_conversation()
                wait_for(
                    app,
                    "a new conversation",
                    lambda: chat.current not in (None, before) and not chat.busy,
                )
            chat.send(request)
            wait_for(app, "the plan", lambda: bool(chat.plan_cards) and not chat.busy)
            chat.send(rent)
            wait_for(app, "the approval card", lambda: bool(chat.approval_cards) and not chat.busy)

        converse("en")
        spin(app, args.settle)  # samples for the heatmap and curves
        # The Plan page with a plan on it, and the running job's detail on the Jobs page.
        plan_page = ctl.page_widgets["plan"]
        plan_page.set_values(task="finetune-lora", model_size="13B", gpus="8", budget="500")
        plan_page.plan()
        wait_for(app, "the plan page's plan", lambda: plan_page.view is not None)
        jobs_page = ctl.page_widgets["jobs"]
        ctl.show_page("jobs")
        wait_for(app, "the jobs list", lambda: bool(jobs_page.records) and not jobs_page.busy)
        jobs_page.select_job(started.id)
        wait_for(app, "the job's log", lambda: jobs_page.detail is not None and jobs_page.lines)

        def shot(name: str) -> Path:
            path = args.out / f"{name}.png"
            if not ctl.window.grab().save(str(path)):
                raise SystemExit(f"screenshots: could not write {path}")
            written.append(path)
            return path

        for language, tag in LANGUAGES:
            i18n.install(language)
            if language != "en":
                converse(language)
            for theme in THEMES:
                apply_theme(app, theme)
                suffix = f"{tag}-{theme}"
                for info in PAGES:
                    if info.key in ("history", "settings"):
                        continue  # the history part draws them, on a finished run
                    ctl.show_page(info.key)
                    # The operations panel where the cluster's renting shows.
                    ctl.operations_dock.setVisible(info.key == "clusters")
                    spin(app, 1.5)
                    if info.key == "chat":
                        card: ApprovalCard = next(iter(chat.approval_cards.values()))
                        plan: PlanCard = chat.plan_cards[-1]
                        chat.scroll.ensureWidgetVisible(plan, 0, 0)
                        chat.scroll.ensureWidgetVisible(card, 0, 20)
                        spin(app, 0.5)
                    path = shot(f"{info.key}-{suffix}")
                    if (language, theme) == ("en", "light"):
                        shutil.copyfile(path, args.out / f"{info.key}.png")
                    if info.key == "chat":  # and the plan's comparison table from its top
                        chat.scroll.verticalScrollBar().setValue(plan.y() - 8)
                        spin(app, 0.5)
                        path = shot(f"chat-plan-{suffix}")
                        if (language, theme) == ("en", "light"):
                            shutil.copyfile(path, args.out / "chat-plan.png")
                    if info.key == "jobs":  # the detail's log tab as well
                        jobs_page.tabs.setCurrentIndex(1)
                        spin(app, 1.0)
                        shot(f"jobs-log-{suffix}")
                        jobs_page.tabs.setCurrentIndex(0)
        i18n.install("en")
        apply_theme(app, "light")
        # The README's picture: the chat with its approval card waiting.
        shutil.copyfile(args.out / "chat.png", args.out / "main-window.png")
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
    return written


def history_pages(args: argparse.Namespace) -> list[Path]:
    """The History page's replay, timeline and comparison and the Settings tabs, on a
    finished run with every provider failing (offline)."""
    width, height = (int(v) for v in args.size.lower().split("x"))
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    run_home = Path(tempfile.mkdtemp(prefix="xyclaw-history-run-"))
    home = Path(tempfile.mkdtemp(prefix="xyclaw-history-shots-"))
    written: list[Path] = []
    try:
        from tests.gui_history.conftest import FailingProviders
        from tests.gui_history.history_run import copy_history, make_history

        print("a run on the simulated cloud (about a minute)…", flush=True)
        facts = make_history(run_home / "home")
        os.environ["XYCLAW_HOME"] = str(home)
        os.environ["XYCLAW_SECRETS_BACKEND"] = "file"
        copy_history(facts, home)

        from xyclaw.config import load_config
        from xyclaw.engine.compose import build_engine
        from xyclaw.gui import i18n
        from xyclaw.gui.app import apply_theme, build_runtime, create_app
        from xyclaw.gui.main_window import MainWindowController
        from xyclaw.paths import AppPaths
        from xyclaw.store import Store

        app = create_app()
        paths = AppPaths.from_environment()
        (paths.config_dir / "hosts.toml").write_text(
            '[[host]]\nname = "gpu1"\ngpu = "A100-80G"\ngpus = 8\nfabric = "ib-hdr-200"\n'
            'price_per_gpu_hour = 0\n\n[[host]]\nname = "root@10.0.0.12:22"\ngpu = "RTX 4090"\n'
            'gpus = 4\nfabric = "none"\n'
        )
        store = Store(paths.database)
        engine = build_engine(
            paths, load_config(paths.config_file), providers=FailingProviders(), store=store
        )
        # with the agents, as the app has them (Settings' permissions tab says what they
        # remember, not "the agents are starting")
        runtime = off_thread(app, "starting the agents", lambda: build_runtime(engine, store))
        ctl = MainWindowController(
            engine, runtime, tray_available=False, on_quit=lambda: None, status_refresh_ms=3_600_000
        )
        ctl.window.resize(width, height)
        ctl.window.show()
        spin(app, 0.5)
        history = ctl.page_widgets["history"]
        settings = ctl.page_widgets["settings"]
        args.out.mkdir(parents=True, exist_ok=True)

        def shot(name: str) -> None:
            spin(app, 0.6)
            path = args.out / f"{name}.png"
            if not ctl.window.grab().save(str(path)):
                raise SystemExit(f"screenshots: could not write {path}")
            written.append(path)

        for language, short in LANGUAGES:
            i18n.install(language)
            for theme in THEMES:
                apply_theme(app, theme)
                tag = f"{short}-{theme}"
                ctl.show_page("history")
                wait_for(app, "the lists", lambda: len(history.jobs) == 2 and not history.busy)
                history.select("job", [facts.job_a])
                history.replay_selected()
                wait_for(app, "the replay", lambda: history.replay is not None and not history.busy)
                history.replay_view.tabs.setCurrentIndex(0)
                shot(f"history-replay-{tag}")
                history.replay_view.tabs.setCurrentIndex(1)
                shot(f"history-timeline-{tag}")
                history.replay_view.tabs.setCurrentIndex(0)
                history.select("job", [facts.job_a, facts.job_b])
                history.compare_selected()
                wait_for(app, "the comparison", lambda: history.comparison is not None)
                wait_for(app, "the comparison drawn", lambda: not history.busy)
                shot(f"history-compare-{tag}")
                ctl.show_page("settings")
                wait_for(app, "the settings", lambda: settings._loaded and not settings.busy)
                for index, name in ((0, "model"), (1, "hosts"), (3, "money")):
                    settings.tabs.setCurrentIndex(index)
                    shot(f"settings-{name}-{tag}")
                history.replay = history.comparison = None
        ctl.quit_now()
        runtime.close()
        engine.close()
    finally:
        shutil.rmtree(run_home, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return written


if __name__ == "__main__":
    sys.exit(main())
