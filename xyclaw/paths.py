"""Where XyClaw keeps its files, and where its bundled data lives.

Folders come from platformdirs. ``XYCLAW_HOME`` moves every folder under one
root (tests and portable installs use it). Bundled data (``agents/``, ``ui/``,
``resources/``) is found the same way from a source checkout and from an
installed wheel: see :func:`bundled`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "xyclaw"
HOME_ENV = "XYCLAW_HOME"
_BUNDLED_NAMES = ("agents", "ui", "resources")


@dataclass(frozen=True)
class AppPaths:
    """The app's folders. Nothing is created until :meth:`ensure` is called."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path
    log_dir: Path
    state_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def database(self) -> Path:
        return self.data_dir / "xyclaw.db"

    @property
    def agent_checkpoints(self) -> Path:
        """A second SQLite file, so agent checkpoints never contend with the store's lock."""
        return self.data_dir / "agent-checkpoints.db"

    @property
    def secrets_file(self) -> Path:
        return self.config_dir / "secrets.json"

    @property
    def known_hosts(self) -> Path:
        return self.data_dir / "known_hosts"

    @property
    def log_file(self) -> Path:
        return self.log_dir / "xyclaw.log"

    def ensure(self) -> AppPaths:
        for folder in (
            self.config_dir,
            self.data_dir,
            self.cache_dir,
            self.log_dir,
            self.state_dir,
        ):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    @classmethod
    def under(cls, root: Path) -> AppPaths:
        root = root.expanduser().resolve()
        return cls(
            config_dir=root / "config",
            data_dir=root / "data",
            cache_dir=root / "cache",
            log_dir=root / "logs",
            state_dir=root / "state",
        )

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> AppPaths:
        env = os.environ if environ is None else environ
        home = env.get(HOME_ENV, "").strip()
        if home:
            return cls.under(Path(home))
        import platformdirs

        dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
        return cls(
            config_dir=Path(dirs.user_config_dir),
            data_dir=Path(dirs.user_data_dir),
            cache_dir=Path(dirs.user_cache_dir),
            log_dir=Path(dirs.user_log_dir),
            state_dir=Path(dirs.user_state_dir),
        )


def bundled(name: str) -> Path:
    """The folder of bundled data ``name`` (``agents``, ``ui`` or ``resources``).

    An installed wheel carries them as ``xyclaw/_bundled/<name>``; a source
    checkout (or an editable install) has them beside the package.
    """
    if name not in _BUNDLED_NAMES:
        raise ValueError(f"unknown bundled folder {name!r}; expected one of {_BUNDLED_NAMES}")
    package_dir = Path(__file__).resolve().parent
    inside = package_dir / "_bundled" / name
    if inside.is_dir():
        return inside
    beside = package_dir.parent / name
    if beside.is_dir():
        return beside
    raise FileNotFoundError(
        f"XyClaw's bundled folder {name!r} is missing (looked in {inside} and {beside}); "
        "reinstall the package"
    )
