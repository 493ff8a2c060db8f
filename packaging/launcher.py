"""Entry point of the frozen app (PyInstaller): the ``xyclaw`` command, plus ``-m MODULE``.

A frozen program has no Python interpreter to start, yet XyClaw starts some of
its parts as child processes with ``sys.executable -m xyclaw.<module>`` (the
doctor's Qt probe, the simulated cloud's server). Here ``sys.executable`` is
this program, so it answers ``-m xyclaw.<module> ARGS`` the way Python would.
Only XyClaw's own modules can be started this way.
"""

from __future__ import annotations

import runpy
import sys


def _main() -> int:
    argv = sys.argv
    if len(argv) >= 3 and argv[1] == "-m":
        module = argv[2]
        if module != "xyclaw" and not module.startswith("xyclaw."):
            print(f"xyclaw: -m runs XyClaw's own modules only, not {module!r}", file=sys.stderr)
            return 2
        sys.argv = [argv[0], *argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0
    from xyclaw.cli.main import main

    return main()


if __name__ == "__main__":
    sys.exit(_main())
