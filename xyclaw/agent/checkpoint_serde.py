"""The checkpoint serializer: LangGraph's own, with every registered secret masked in what it
writes, so the checkpoint file and its WAL never hold a key a model or a command echoed."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from xyclaw.secrets import REGISTRY, SecretRegistry


class MaskingSerializer(SerializerProtocol):
    """Wraps a serializer; the bytes it writes have each secret replaced by as many ``*``.

    Masking the encoded bytes (and not the objects) reaches every string of every value
    LangGraph stores (channel values, pending writes, interrupts) whatever its type, and
    keeps the length of each string, so msgpack's length prefixes still hold."""

    def __init__(
        self, inner: SerializerProtocol | None = None, registry: SecretRegistry = REGISTRY
    ) -> None:
        self._inner = inner or JsonPlusSerializer()
        self._registry = registry

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        kind, data = self._inner.dumps_typed(obj)
        return kind, self._registry.mask_bytes(data)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self._inner.loads_typed(data)
