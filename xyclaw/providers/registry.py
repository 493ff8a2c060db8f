"""Providers by name, built on first use (starting the simulated cloud costs a second)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from xyclaw.errors import UsageError
from xyclaw.providers.base import Provider
from xyclaw.wording import Said, said

ProviderFactory = Callable[[], Provider]


class ProviderRegistry:
    def __init__(self) -> None:
        self._factories: dict[str, ProviderFactory] = {}
        self._built: dict[str, Provider] = {}
        self._not_loaded: list[Said] = []
        self._lock = threading.Lock()

    def register(self, name: str, factory: ProviderFactory) -> None:
        with self._lock:
            self._factories[name] = factory
            self._built.pop(name, None)

    def add(self, provider: Provider) -> None:
        """Register an already built provider (tests, plug-ins)."""
        with self._lock:
            self._factories[provider.name] = lambda: provider
            self._built[provider.name] = provider

    def not_loaded(self, why: Said) -> None:
        """Providers the configuration names but that could not be built (a [[slurm]] table
        that does not read): asking for an unknown name then says why, not only which names
        there are."""
        with self._lock:
            self._not_loaded.append(why)

    @property
    def left_out(self) -> list[Said]:
        """Why providers the configuration names are missing (see :meth:`not_loaded`)."""
        with self._lock:
            return list(self._not_loaded)

    @property
    def names(self) -> list[str]:
        return list(self._factories)

    def built(self) -> list[Provider]:
        """The providers in use so far (reconciliation asks only those with clusters)."""
        with self._lock:
            return list(self._built.values())

    def get(self, name: str) -> Provider:
        with self._lock:
            provider = self._built.get(name)
            if provider is not None:
                return provider
            factory = self._factories.get(name)
        if factory is None:
            known = said("error.provider.known", names=", ".join(self._factories))
            if self._not_loaded:
                known = said(
                    "error.provider.known_not_loaded", known=known, why=self._not_loaded[0]
                )
            raise UsageError(said("error.provider.unknown", name=repr(name)), hint=known)
        provider = factory()
        with self._lock:
            self._built.setdefault(name, provider)
            return self._built[name]

    def close(self) -> None:
        with self._lock:
            built = list(self._built.values())
            self._built.clear()
        for provider in built:
            provider.close()
