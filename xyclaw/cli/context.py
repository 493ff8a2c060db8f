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
    from xyclaw.cli.trust import TerminalTrust
    from xyclaw.engine import Engine
    from xyclaw.engine.values import Store, TrustNewHost


@dataclass
class CliContext:
    """Built once per invocation; heavy parts (store, engine) only when a command asks."""

    paths: AppPaths
    overrides: dict[str, Any] = field(default_factory=dict)
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    err: IO[str] = field(default_factory=lambda: sys.stderr)
    #: ``--trust-new-host``: accept unknown SSH host keys (each is printed); else ask at a
    #: terminal, or refuse with the commands that accept it. ``argv`` is the command line.
    trust_new_host: bool = False
    argv: list[str] | None = None
    _trust: TerminalTrust | None = None
    _config: Config | None = None
    _engine: Engine | None = None
    _store: Store | None = None
    _closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.paths.config_file, overrides=self.overrides)
        return self._config

    @property
    def language(self) -> str:
        """The language of the main messages: "zh" or "en", from ``[gui] language``."""
        from xyclaw.wording import language_of

        return language_of(self.config.gui.language)

    def text(self, key: str, /, **values: object) -> str:
        """The command line's entry ``cli.<key>`` of :mod:`xyclaw.wording` in the setting's
        language."""
        from xyclaw.wording import text_in

        return text_in(self.language, f"cli.{key}", **values)

    def engine(self, trust_new_host: TrustNewHost | None = None) -> Engine:
        """The engine, built on first use with the real parts and closed at exit.

        ``trust_new_host`` (the desktop app's host-key prompt) only counts on that first use;
        without it the terminal's question is used (see :meth:`trust`). The same prompt
        answers a login's keyboard-interactive questions (2FA) where it has
        ``answer_prompts``; one without (the MCP server's refusal) answers none.
        """
        if self._engine is None:
            from xyclaw.engine.compose import build_engine

            trust = trust_new_host or self.trust()
            self._engine = build_engine(
                self.paths,
                self.config,
                trust_new_host=trust,
                answer_prompts=getattr(trust, "answer_prompts", None),
                store=self.store(),
            )
            self._closers.append(self._engine.close)
        return self._engine

    def store(self) -> Store:
        """The history database, opened once per process (its one writer); the engine and
        the agents both get this one."""
        if self._store is None:
            from xyclaw.engine import Engine

            self._store = Engine.open_store(self.paths)
            self._closers.append(self._store.close)  # closing twice is harmless
        return self._store

    def trust(self) -> TerminalTrust:
        """The question asked before XyClaw logs in to a host whose key it does not know."""
        if self._trust is None:
            from xyclaw.cli.trust import TerminalTrust

            self._trust = TerminalTrust(
                accept_new=self.trust_new_host,
                argv=self.argv,
                err=self.err,
                name_of=self._own_host_name,
                language=self.language,
            )
        return self._trust

    def _own_host_name(self, entry: str) -> str | None:
        """The hosts.toml name of the host recorded as ``entry`` (``[host]:port``), if any."""
        from xyclaw.engine import Engine

        return Engine.own_host_name(self.paths, entry)

    def on_close(self, closer: Callable[[], None]) -> None:
        self._closers.append(closer)

    def print(self, *parts: object) -> None:
        print(*parts, file=self.out)

    def warn(self, *parts: object) -> None:
        print(*parts, file=self.err)

    def print_json(self, obj: Any) -> None:
        # One write of the whole text: json.dump writes each of its thousands of pieces (50
        # clusters: ~10 ms more); the text is the same.
        self.out.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")

    def close(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            closer()
