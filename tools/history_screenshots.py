"""PNGs of the History and Settings pages, in English and 简体中文, light and dark, to
docs/screenshots/ (history-*.png, settings-*.png).

The history is made by a real run on the simulated cloud in a temporary XYCLAW_HOME (a
2-node cluster rented, tuned, two jobs of which one is recovered, released; the cloud is
stopped: see tests/gui_history/history_run.py); the window then runs on it with no
provider reachable, as on a train. Nothing of the user's own data is touched.

    .venv/bin/python tools/history_screenshots.py [--out docs/screenshots]

Chinese text needs a CJK font on the machine (Debian: fonts-wqy-microhei).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def spin(app: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait(app: Any, what: str, done: Any, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            raise SystemExit(f"history screenshots: timed out waiting for {what}")
        spin(app, 0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--size", default="1400x900")
    args = parser.parse_args(argv)
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
        from xyclaw.gui.app import apply_theme, create_app
        from xyclaw.gui.main_window import MainWindowController
        from xyclaw.paths import AppPaths

        app = create_app()
        paths = AppPaths.from_environment()
        (paths.config_dir / "hosts.toml").write_text(
            '[[host]]\nname = "gpu1"\ngpu = "A100-80G"\ngpus = 8\nfabric = "ib-hdr-200"\n'
            'price_per_gpu_hour = 0\n\n[[host]]\nname = "root@10.0.0.12:22"\ngpu = "RTX 4090"\n'
            'gpus = 4\nfabric = "none"\n'
        )
        engine = build_engine(paths, load_config(paths.config_file), providers=FailingProviders())
        ctl = MainWindowController(
            engine, None, tray_available=False, on_quit=lambda: None, status_refresh_ms=3_600_000
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
                raise SystemExit(f"history screenshots: could not write {path}")
            written.append(path)

        for language in ("en", "zh_CN"):
            i18n.install(language)
            for theme in ("light", "dark"):
                apply_theme(app, theme)
                tag = f"{'zh' if language == 'zh_CN' else 'en'}-{theme}"
                ctl.show_page("history")
                wait(app, "the lists", lambda: len(history.jobs) == 2 and not history.busy)
                history.select("job", [facts.job_a])
                history.replay_selected()
                wait(app, "the replay", lambda: history.replay is not None and not history.busy)
                history.replay_view.tabs.setCurrentIndex(0)
                shot(f"history-replay-{tag}")
                history.replay_view.tabs.setCurrentIndex(1)
                shot(f"history-timeline-{tag}")
                history.replay_view.tabs.setCurrentIndex(0)
                history.select("job", [facts.job_a, facts.job_b])
                history.compare_selected()
                wait(app, "the comparison", lambda: history.comparison is not None)
                wait(app, "the comparison drawn", lambda: not history.busy)
                shot(f"history-compare-{tag}")
                ctl.show_page("settings")
                wait(app, "the settings", lambda: settings._loaded and not settings.busy)
                for index, name in ((0, "model"), (1, "hosts"), (3, "money")):
                    settings.tabs.setCurrentIndex(index)
                    shot(f"settings-{name}-{tag}")
                history.replay = history.comparison = None
        ctl.quit_now()
        engine.close()
    finally:
        shutil.rmtree(run_home, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    for path in written:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
