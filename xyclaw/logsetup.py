"""Logging to a rotating file in the log folder, with secrets masked on the way out."""

from __future__ import annotations

import logging
import logging.handlers
import re
from collections.abc import Callable
from pathlib import Path

_MASK = "***"
#: Masks every registered secret; :mod:`xyclaw.secrets` (a layer above) installs its
#: registry's mask when it is imported, which it is before any secret can be registered.
_mask: Callable[[str], str] = str


def install_masker(masker: Callable[[str], str]) -> None:
    """Called by :mod:`xyclaw.secrets`: every log record is masked with it."""
    global _mask
    _mask = masker


_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{12,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"(?i)((?:password|passwd|api[_-]?key|token|secret)\s*[=:]\s*)\S+"),
)


def redact(text: str) -> str:
    """``text`` with every registered secret masked, and what looks like a key or password."""
    text = _mask(text)
    for pattern in _PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + _MASK, text)
        else:
            text = pattern.sub(_MASK, text)
    return text


class SecretFilter(logging.Filter):
    """Masks a record's message (its arguments merged in) before any handler writes it, so a
    library's own handler on the same logger writes no secret either."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit: leave it to the formatter
            return True
        masked = redact(message)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        return True


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


_configured: Path | None = None
#: Loggers of libraries whose records belong in XyClaw's log file, never on the terminal.
THIRD_PARTY_LOGGERS = ("paramiko",)


def configure_logging(log_file: Path, level: str = "INFO") -> None:
    """Send the app's logs to a rotating file (5 x 2 MiB). Safe to call more than once."""
    global _configured
    root = logging.getLogger("xyclaw")
    root.setLevel(level)
    if _configured == log_file:
        return
    for handler in list(root.handlers):
        if getattr(handler, "_xyclaw", False):
            root.removeHandler(handler)
            handler.close()
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        log_file, maxBytes=2 * 1024 * 1024, backupCount=5, encoding="utf-8"
    )
    handler.setFormatter(
        RedactingFormatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s")
    )
    handler.addFilter(SecretFilter())
    handler._xyclaw = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    # Libraries that log their own errors (paramiko prints a whole traceback for a port that
    # is not SSH) write to the same file: with no handler of their own, Python's last-resort
    # handler would put it on the user's terminal next to XyClaw's one message.
    for name in THIRD_PARTY_LOGGERS:
        other = logging.getLogger(name)
        for old in list(other.handlers):
            if getattr(old, "_xyclaw", False):
                other.removeHandler(old)
        other.addHandler(handler)
        other.setLevel(logging.DEBUG if level.upper() == "DEBUG" else logging.WARNING)
    _configured = log_file
