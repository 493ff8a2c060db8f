"""What every subcommand gets: folders, configuration, the engine (built lazily), output."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from xyclaw.config import Config, load_config
from xyclaw.paths import AppPaths

if TYPE_CHECKING:
    from xyclaw.engine import Engine
    from xyclaw.remote.known_hosts import TrustNewHost


@dataclass
class CliContext:
    """Built once per invocation; heavy parts (store, engine) only when a command asks."""

    paths: AppPaths
    overrides: dict[str, Any] = field(default_factory=dict)
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    err: IO[str] = field(default_factory=lambda: sys.stderr)
    _config: Config | None = None
    _engine: Engine | None = None
    _closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.paths.config_file, overrides=self.overrides)
        return self._config

    def engine(self, trust_new_host: TrustNewHost | None = None) -> Engine:
        """The engine, built on first use with the real parts and closed at exit.

        ``trust_new_host`` (the desktop app's host-key prompt) only counts on that first use.
        """
        if self._engine is None:
            from xyclaw.engine.compose import build_engine

            self._engine = build_engine(self.paths, self.config, trust_new_host=trust_new_host)
            self._closers.append(self._engine.close)
        return self._engine

    def on_close(self, closer: Callable[[], None]) -> None:
        self._closers.append(closer)

    def print(self, *parts: object) -> None:
        print(*parts, file=self.out)

    def warn(self, *parts: object) -> None:
        print(*parts, file=self.err)

    def print_json(self, obj: Any) -> None:
        json.dump(obj, self.out, indent=2, ensure_ascii=False, default=str)
        self.out.write("\n")

    def close(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            closer()
