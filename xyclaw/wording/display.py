"""Untrusted text made safe to draw: model text, tool arguments, remote output and names.

A model, a log line or a provider's name can carry characters that a terminal or a Qt label
does not show as themselves: a carriage return or an ``ESC [2K`` that redraws the line, a
conceal attribute that hides what follows, a right-to-left override that prints a command
backwards, a zero-width space that makes two different names look the same. Every face draws
such text through one of the two functions here:

- :func:`line` for a one-line field (a command on an approval card, a cluster's name, a
  node's state): nothing in it may start a new line or move the cursor, so a second line
  cannot pose as a card's row.
- :func:`text` for multi-line content (a model's reply, a log): its newlines and tabs are
  kept, everything else as in :func:`line`.

What each class of character becomes (the choice is "visible" wherever hiding the character
would hide what will run; removal only where the character can do nothing but style):

==============================================  ==================================================
class                                           shown as
==============================================  ==================================================
ESC and the escape sequence it starts (CSI,     the ESC as ``␛`` and the rest as the plain text
OSC, DCS, ...)                                  it is: ``\\x1b[2K`` shows as ``␛[2K``
a complete colour/style sequence (SGR,          removed in :func:`text` (a log's colours, or a
``ESC [ ... m``, conceal ``ESC [8m`` included)  conceal: neither can act once removed); visible
                                                like any escape in :func:`line`
other C0 controls and DEL                       their Control Pictures glyph: ``\\r`` -> ``␍``,
                                                ``\\b`` -> ``␈``, ``\\x00`` -> ``␀``, DEL -> ``␡``
newline, tab                                    kept in :func:`text`; ``␊`` and ``␉`` in
                                                :func:`line`
carriage return before a newline (CRLF)         the newline alone in :func:`text`
a lone carriage return                          a newline in :func:`text` (a progress bar's
                                                redraws read as successive lines); ``␍`` in
                                                :func:`line`
C1 controls (U+0080-U+009F, 8-bit CSI/OSC)      ``<U+009B>``
bidi embeddings, overrides, isolates and marks  ``<U+202E>`` (they reorder what is drawn around
(U+202A-202E, U+2066-2069, U+200E/F, U+061C)    them: visible, never obeyed)
zero-width and other invisible format           ``<U+200B>`` (invisible characters make two
characters (U+200B-200D, U+2060-2064, U+FEFF,   different texts look the same: visible)
tag characters, every other Unicode "Cf", the
blank fillers U+115F/1160/3164/FFA0, U+034F)
line and paragraph separators (U+2028/2029)     ``<U+2028>`` (Qt breaks the line at them)
lone surrogates (from a JSON ``\\ud800``)        ``<U+D800>`` (they cannot even be printed)
the terminal card's marker :data:`CARD_MARK`    ``<U+2503>``, so that no untrusted line can
                                                begin with it
==============================================  ==================================================

The ``<U+XXXX>`` and Control Pictures forms can be typed by anyone; that is harmless (they show
a character that is not there, never hide one that is). This module is in the ground: every
layer may use it.
"""

from __future__ import annotations

import re

__all__ = ["CARD_MARK", "is_clean", "line", "text"]

#: The first character of every line of an approval card drawn in a terminal. Untrusted text
#: never contains it once drawn through :func:`line` or :func:`text`, so a line of model
#: text cannot begin like a card's line.
CARD_MARK = "\u2503"  # ┃ BOX DRAWINGS HEAVY VERTICAL

_ESC = "\x1b"
# A complete SGR sequence (colours, bold, conceal...): the only escape that is only a style.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CRLF = re.compile(r"\r+\n")

# The characters that need a decision, found fast with one pattern: C0 and DEL, C1, the
# Unicode format characters a regex cannot name by category (listed by range), the line and
# paragraph separators, lone surrogates, and the card's marker.
_SUSPECT = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164"
    "\ufeff\uffa0\ufff9-\ufffb"
    "\ud800-\udfff"
    "\u2503"
    "\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
    "]"
)


def _picture(code: int) -> str:
    """Control Pictures: U+2400 + the code for C0, U+2421 for DEL."""
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def _visible(ch: str, *, multiline: bool) -> str:
    code = ord(ch)
    if code < 0x20 or code == 0x7F:
        if multiline and ch in "\n\t":
            return ch
        if multiline and ch == "\r":
            return "\n"  # a lone CR: the CRLF pairs were made newlines before
        return _picture(code)
    return f"<U+{code:04X}>"


def _shown(value: object, *, multiline: bool) -> str:
    s = value if isinstance(value, str) else str(value)
    if multiline:
        s = _CRLF.sub("\n", s)
        if _ESC in s:
            s = _SGR.sub("", s)
    if not _SUSPECT.search(s):
        return s
    return _SUSPECT.sub(lambda m: _visible(m.group(0), multiline=multiline), s)


def line(value: object) -> str:
    """``value`` as one line that draws as exactly what it holds (see the module's table)."""
    return _shown(value, multiline=False)


def text(value: object) -> str:
    """``value`` as multi-line content: newlines and tabs kept, a log's colour codes dropped,
    every other control, escape, bidi and invisible character made visible."""
    return _shown(value, multiline=True)


def is_clean(value: str, *, multiline: bool = False) -> bool:
    """Whether ``value`` draws as itself (nothing :func:`line` or :func:`text` would change)."""
    return _shown(value, multiline=multiline) == value
