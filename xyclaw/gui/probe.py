"""Run as ``python -m xyclaw.gui.probe``: can Qt start here? Prints one JSON line."""

from __future__ import annotations

import json
import sys


def main() -> int:
    try:
        from PySide6 import __version__ as qt_version
        from PySide6.QtGui import QGuiApplication

        app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
        platform = QGuiApplication.platformName()
        del app
    except Exception as exc:  # the probe reports, it does not crash
        print(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}))
        return 1
    print(json.dumps({"ok": True, "qt": qt_version, "platform": platform}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
