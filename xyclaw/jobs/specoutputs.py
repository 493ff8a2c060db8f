"""The spec's ``outputs:``: what XyClaw copies off a job's nodes while it runs (issue 32).

Kept apart from the loader (:mod:`xyclaw.jobs.spec` calls :func:`read_outputs`) so the
field stays one small piece. ``outputs`` names files or folders on the head node (or on
every node); the checkpoint directory is one of them by default. Everything new or
changed there is copied to this machine every ``every`` seconds, up to ``max_size`` in
all, so a host that is lost loses at most the last interval.

Forms::

    outputs: /shared/out                  # one path (head node)
    outputs: [/shared/out, ~/results]     # several
    outputs:
      paths: [/shared/out]
      nodes: head                         # head | all
      to: ~/results/run1                  # on this machine; default XYCLAW_HOME/outputs/
      max_size: 20 GB
      every: 1m
      checkpoints: true                   # the checkpoint_dir too (the default)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Protocol

from xyclaw.wording import said

if TYPE_CHECKING:
    from xyclaw.jobs.specyaml import YNode

DEFAULT_MAX_BYTES = 20 * 1024**3
DEFAULT_EVERY_S = 60
OUTPUT_KEYS = ("paths", "nodes", "to", "max_size", "every", "checkpoints")
_PATH_BAD = re.compile(r"[\x00\n\r]")
_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1024**3,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1024**4,
}
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")


@dataclass(frozen=True, slots=True)
class OutputsSpec:
    """What to copy off the nodes, where to, how often and how much at most."""

    paths: tuple[str, ...] = ()
    every_node: bool = False
    to: str | None = None  # a local folder, absolute once loaded; None: under XYCLAW_HOME
    max_bytes: int = DEFAULT_MAX_BYTES
    every_s: int = DEFAULT_EVERY_S
    checkpoints: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "paths": list(self.paths),
            "every_node": self.every_node,
            "to": self.to,
            "max_bytes": self.max_bytes,
            "every_s": self.every_s,
            "checkpoints": self.checkpoints,
        }


def outputs_from_dict(data: object) -> OutputsSpec | None:
    """The stored form back (ValueError naming what is damaged)."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise ValueError("expected an object")
    paths = data.get("paths", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise ValueError("paths: expected a list of paths")
    to = data.get("to")
    if to is not None and not isinstance(to, str):
        raise ValueError("to: expected text or null")
    numbers = {k: data.get(k, d) for k, d in (("max_bytes", DEFAULT_MAX_BYTES), ("every_s", 60))}
    for key, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key}: expected a whole number above 0")
    flags = {k: data.get(k, d) for k, d in (("every_node", False), ("checkpoints", True))}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ValueError(f"{key}: expected true or false")
    return OutputsSpec(
        tuple(paths),
        flags["every_node"],
        to,
        numbers["max_bytes"],
        numbers["every_s"],
        flags["checkpoints"],
    )


def parse_size(value: object) -> int:
    """``20 GB``, ``500MiB``, ``1.5g`` or a number of bytes -> bytes (ValueError if not)."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        if value < 1:
            raise ValueError(value)
        return value
    m = _SIZE_RE.fullmatch(str(value))
    if m is None or m.group(2).lower() not in _UNITS:
        raise ValueError(value)
    try:
        amount = Decimal(m.group(1)) * _UNITS[m.group(2).lower()]
    except InvalidOperation:
        raise ValueError(value) from None
    if amount < 1:
        raise ValueError(value)
    return int(amount)


def is_xyclaw_outputs(node: YNode) -> bool:
    """``outputs:`` in XyClaw's form (paths, or a mapping of :data:`OUTPUT_KEYS`, a typo
    in them included), not SkyPilot's experimental one (bucket URLs mapped to their
    estimated size in GB: a sign of a SkyPilot file, and warned about there)."""
    if node.is_map:
        return not any("://" in key for key, _ in node.items())
    return True


def effective_paths(outputs: OutputsSpec | None, checkpoint_dir: str | None) -> tuple[str, ...]:
    """The paths copied off the nodes: the spec's, and the checkpoint directory unless the
    spec says ``checkpoints: false`` (with no ``outputs`` at all, the checkpoints only)."""
    if outputs is None:
        return (checkpoint_dir,) if checkpoint_dir else ()
    paths = list(outputs.paths)
    if outputs.checkpoints and checkpoint_dir and checkpoint_dir not in paths:
        paths.append(checkpoint_dir)
    return tuple(paths)


class _Reads(Protocol):
    """What :func:`read_outputs` needs of the spec reader (``xyclaw.jobs.spec._Reader``)."""

    def error(self, node: YNode, problem: Any, allowed: Any = None, hint: Any = None) -> Any: ...
    def mapping(self, node: YNode, allowed_keys: tuple[str, ...], what: str) -> YNode: ...
    def text(self, node: YNode, allowed: Any, *, single_line: bool = False) -> str: ...
    def boolean(self, node: YNode, allowed: Any = None) -> bool: ...
    def local_path(self, node: YNode | None, check: bool, *, folder: bool) -> str | None: ...
    def remote_dir(self, node: YNode) -> str: ...


def read_outputs(
    reader: Any, node: YNode | None, duration: Callable[[object], int]
) -> OutputsSpec | None:
    """``outputs:`` of a spec file, errors with the line; None when absent. ``duration``
    reads ``every`` as the spec reads durations (its ValueError carries the wording)."""
    r: _Reads = reader
    if node is None or node.value is None:
        return None
    if node.is_map:
        r.mapping(node, OUTPUT_KEYS, "outputs")
        paths = _paths(r, node.get("paths"))
        spec = OutputsSpec(paths=paths)
        where = node.get("nodes")
        every_node = False
        if where is not None and where.value is not None:
            text = r.text(where, "head, all", single_line=True).strip().lower()
            if text not in ("head", "all"):
                problem = said("error.spec.outputs_nodes", value=repr(text))
                raise r.error(where, problem, "head, all")
            every_node = text == "all"
        to_node = node.get("to")
        to = None
        if to_node is not None and to_node.value is not None:
            to = r.local_path(to_node, False, folder=True)
        max_bytes = spec.max_bytes
        size_node = node.get("max_size")
        if size_node is not None and size_node.value is not None:
            try:
                max_bytes = parse_size(size_node.value)
            except ValueError:
                raise r.error(
                    size_node,
                    said("error.spec.outputs_size", value=repr(size_node.text())),
                    said("error.spec.outputs_size_allowed"),
                ) from None
        every_s = spec.every_s
        every_node_ = node.get("every")
        if every_node_ is not None and every_node_.value is not None:
            try:
                every_s = duration(every_node_.value)
            except ValueError as exc:
                worded: Any = getattr(exc, "problem_said", None) or str(exc)
                raise r.error(every_node_, worded, getattr(exc, "allowed_said", None)) from None
        checkpoints = True
        ck = node.get("checkpoints")
        if ck is not None and ck.value is not None:
            checkpoints = r.boolean(ck)
        return OutputsSpec(paths, every_node, to, max_bytes, every_s, checkpoints)
    return OutputsSpec(paths=_paths(r, node))


def _paths(r: _Reads, node: YNode | None) -> tuple[str, ...]:
    if node is None or node.value is None:
        return ()
    allowed = said("error.spec.outputs_paths_allowed")
    items = node.elements() if node.is_list else [node]
    found: list[str] = []
    for child in items:
        text = r.text(child, allowed, single_line=True).strip()
        if not (text.startswith("/") or text.startswith("~/")) or _PATH_BAD.search(text):
            raise r.error(child, said("error.spec.outputs_path", text=repr(text)), allowed)
        text = text.rstrip("/") or "/"
        if text not in found:
            found.append(text)
    return tuple(found)
