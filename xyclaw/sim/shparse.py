"""Lexer and parser for the simulated node's shell: the part of bash bootstrap scripts use.

Supported: `;` `&` `&&` `||` `|` `!`, newlines, `( )` and `{ }`, `if`,
`for`, `while`/`until`, `[[ ]]`, words with single, double and ANSI-C
quotes, backslashes, `$VAR` `${VAR...}` `$(...)` backticks `$((...))`,
redirections (`>` `>>` `<` `2>&1` `&>` here-documents and here-strings) and
`#` comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_META = frozenset(" \t\n;&|()<>")
_NAME_RX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REDIR_RX = re.compile(r"(\d*)(&>>|&>|>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)")
RESERVED = frozenset(
    {"if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "{", "}", "!"}
)


class ShellSyntaxError(Exception):
    """What bash says about a script it cannot parse (without the `bash: -c: line 1:` prefix)."""


# -- words -------------------------------------------------------------------------------------


@dataclass
class Part:
    """A piece of a word: literal text or something to expand."""

    kind: str  # lit, var, cmd, arith
    text: str  # literal text, variable name, script or expression
    quoted: bool = False
    op: str = ""  # for ${name<op><arg>}
    arg: Word | None = None


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)

    def literal(self) -> str | None:
        """The text when the word is one unquoted literal (reserved words, assignments)."""
        if len(self.parts) == 1 and self.parts[0].kind == "lit" and not self.parts[0].quoted:
            return self.parts[0].text
        return None

    def static_text(self) -> str | None:
        """The text when nothing in the word needs expanding (quotes removed)."""
        if all(p.kind == "lit" for p in self.parts):
            return "".join(p.text for p in self.parts)
        return None

    def any_quoted(self) -> bool:
        return any(p.quoted for p in self.parts)


@dataclass
class HereDoc:
    delimiter: str
    strip_tabs: bool
    quoted: bool
    body: str = ""
    word: Word | None = None  # the body parsed for expansion (unquoted delimiter)


@dataclass
class Token:
    kind: str  # word, op, redir, nl, eof
    start: int
    end: int
    word: Word | None = None
    op: str = ""
    fd: int | None = None
    heredoc: HereDoc | None = None


# -- AST ---------------------------------------------------------------------------------------


@dataclass
class Redir:
    fd: int
    op: str  # > >> < &> &>> >& <& <<< <<
    target: Word | None = None
    heredoc: HereDoc | None = None


@dataclass
class Simple:
    assigns: list[tuple[str, Word]]
    words: list[Word]
    redirs: list[Redir]
    text: str


@dataclass
class Pipeline:
    cmds: list[Command]
    negate: bool = False


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)


@dataclass
class CmdList:
    items: list[tuple[AndOr, bool]] = field(default_factory=list)  # (and-or, run in background)


@dataclass
class If:
    branches: list[tuple[CmdList, CmdList]]
    orelse: CmdList | None
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class For:
    var: str
    words: list[Word] | None
    body: CmdList
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class While:
    cond: CmdList
    body: CmdList
    until: bool
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Group:
    body: CmdList
    subshell: bool
    redirs: list[Redir] = field(default_factory=list)


Command = Simple | If | For | While | Group


# -- lexer -------------------------------------------------------------------------------------


def match_paren(s: str, open_idx: int) -> int:
    """Index of the `)` that closes the `(` at open_idx, skipping quotes; -1 if none."""
    depth = 0
    i = open_idx
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                return -1
            i = j + 1
            continue
        if c == '"':
            i = _skip_dquote(s, i)
            if i < 0:
                return -1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _skip_dquote(s: str, i: int) -> int:
    """Index just after the double-quoted string starting at i; -1 if unterminated."""
    i += 1
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == '"':
            return i + 1
        if s.startswith("$(", i):
            j = match_paren(s, i + 1)
            if j < 0:
                return -1
            i = j + 1
            continue
        i += 1
    return -1


def _match_brace(s: str, i: int) -> int:
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = len(s) if j < 0 else j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


_ANSI_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "0": "\0",
}


class _WordReader:
    """Reads words; shared by the lexer, here-documents and ${...} arguments."""

    def __init__(self, s: str, i: int = 0) -> None:
        self.s = s
        self.i = i

    def read(self, *, stop_at_meta: bool = True, heredoc: bool = False) -> Word:
        parts: list[Part] = []
        buf: list[str] = []
        s = self.s

        def flush() -> None:
            if buf:
                parts.append(Part("lit", "".join(buf), quoted=False))
                buf.clear()

        while self.i < len(s):
            c = s[self.i]
            if stop_at_meta and c in _META:
                break
            if c == "\\":
                nxt = s[self.i + 1] if self.i + 1 < len(s) else ""
                if nxt == "\n":
                    self.i += 2
                    continue
                if heredoc:
                    if nxt in ("$", "`", "\\"):
                        flush()
                        parts.append(Part("lit", nxt, quoted=True))
                        self.i += 2
                    else:
                        buf.append("\\")
                        self.i += 1
                    continue
                flush()
                if nxt:
                    parts.append(Part("lit", nxt, quoted=True))
                    self.i += 2
                else:
                    buf.append("\\")
                    self.i += 1
                continue
            if c == "'" and not heredoc:
                flush()
                j = s.find("'", self.i + 1)
                if j < 0:
                    raise ShellSyntaxError("unexpected EOF while looking for matching `''")
                parts.append(Part("lit", s[self.i + 1 : j], quoted=True))
                self.i = j + 1
                continue
            if c == '"' and not heredoc:
                flush()
                self.i += 1
                parts.extend(self._read_dquoted())
                continue
            if c == "$":
                flush()
                parts.append(self._read_dollar(quoted=heredoc))
                continue
            if c == "`":
                flush()
                parts.append(self._read_backtick(quoted=heredoc))
                continue
            buf.append(c)
            self.i += 1
        flush()
        if heredoc:
            for part in parts:
                part.quoted = True
        return Word(_merge(parts))

    def _read_dquoted(self) -> list[Part]:
        s = self.s
        parts: list[Part] = []
        buf: list[str] = []
        while True:
            if self.i >= len(s):
                raise ShellSyntaxError("unexpected EOF while looking for matching `\"'")
            c = s[self.i]
            if c == '"':
                self.i += 1
                break
            if c == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    buf.append(s[self.i + 1])
                self.i += 2
                continue
            if c == "$":
                if buf:
                    parts.append(Part("lit", "".join(buf), quoted=True))
                    buf = []
                parts.append(self._read_dollar(quoted=True))
                continue
            if c == "`":
                if buf:
                    parts.append(Part("lit", "".join(buf), quoted=True))
                    buf = []
                parts.append(self._read_backtick(quoted=True))
                continue
            buf.append(c)
            self.i += 1
        if buf or not parts:
            parts.append(Part("lit", "".join(buf), quoted=True))
        return parts

    def _read_backtick(self, *, quoted: bool) -> Part:
        s = self.s
        j = self.i + 1
        out: list[str] = []
        while j < len(s) and s[j] != "`":
            if s[j] == "\\" and j + 1 < len(s) and s[j + 1] in "`\\$":
                out.append(s[j + 1])
                j += 2
                continue
            out.append(s[j])
            j += 1
        if j >= len(s):
            raise ShellSyntaxError("unexpected EOF while looking for matching ``'")
        self.i = j + 1
        return Part("cmd", "".join(out), quoted=quoted)

    def _read_dollar(self, *, quoted: bool) -> Part:
        s = self.s
        i = self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            end = match_paren(s, i + 1)
            if end < 0:
                raise ShellSyntaxError("unexpected EOF while looking for matching `)'")
            inner = s[i + 2 : end]
            self.i = end + 1
            if inner.startswith("(") and inner.endswith(")") and match_paren(s, i + 2) == end - 1:
                return Part("arith", inner[1:-1], quoted=quoted)
            return Part("cmd", inner, quoted=quoted)
        if nxt == "{":
            end = _match_brace(s, i + 1)
            if end < 0:
                raise ShellSyntaxError("unexpected EOF while looking for matching `}'")
            self.i = end + 1
            return _parse_braced(s[i + 2 : end], quoted)
        if nxt == "'" and not quoted:
            j = i + 2
            out: list[str] = []
            while j < len(s) and s[j] != "'":
                if s[j] == "\\" and j + 1 < len(s):
                    out.append(_ANSI_ESCAPES.get(s[j + 1], "\\" + s[j + 1]))
                    j += 2
                    continue
                out.append(s[j])
                j += 1
            self.i = j + 1
            return Part("lit", "".join(out), quoted=True)
        m = _NAME_RX.match(s, i + 1)
        if m:
            self.i = m.end()
            return Part("var", m.group(0), quoted=quoted)
        if nxt and (nxt in "?$!#@*-" or nxt.isdigit()):
            self.i = i + 2
            return Part("var", nxt, quoted=quoted)
        self.i = i + 1
        return Part("lit", "$", quoted=quoted)


def _parse_braced(content: str, quoted: bool) -> Part:
    if content.startswith("#") and len(content) > 1:
        return Part("var", content[1:], quoted=quoted, op="len")
    m = _NAME_RX.match(content)
    if m:
        name = m.group(0)
    elif content[:1] and (content[0] in "?$!#@*-" or content[0].isdigit()):
        name = content[0]
    else:
        raise ShellSyntaxError(f"${{{content}}}: bad substitution")
    rest = content[len(name) :]
    if not rest:
        return Part("var", name, quoted=quoted)
    for op in (":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?", "#", "%"):
        if rest.startswith(op):
            arg = _WordReader(rest[len(op) :]).read(stop_at_meta=False)
            return Part("var", name, quoted=quoted, op=op, arg=arg)
    raise ShellSyntaxError(f"${{{content}}}: bad substitution")


def _merge(parts: list[Part]) -> list[Part]:
    merged: list[Part] = []
    for part in parts:
        last = merged[-1] if merged else None
        if (
            last is not None
            and part.kind == "lit"
            and last.kind == "lit"
            and last.quoted == part.quoted
        ):
            last.text += part.text
        else:
            merged.append(part)
    return merged


def parse_word(text: str) -> Word:
    """A whole string as one word (spaces are literal), e.g. a ${VAR:-default} argument."""
    return _WordReader(text).read(stop_at_meta=False)


def parse_heredoc_body(text: str) -> Word:
    return _WordReader(text).read(stop_at_meta=False, heredoc=True)


def tokenize(s: str) -> list[Token]:
    tokens: list[Token] = []
    pending: list[HereDoc] = []
    i = 0
    n = len(s)
    reader = _WordReader(s)
    while True:
        while i < n and (s[i] in " \t" or s.startswith("\\\n", i)):
            i += 2 if s[i] == "\\" else 1
        if i >= n:
            if pending:
                for doc in pending:
                    _finish_heredoc(doc, "")
                pending.clear()
            tokens.append(Token("eof", n, n))
            return tokens
        c = s[i]
        if c == "#":
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "\n":
            tokens.append(Token("nl", i, i + 1))
            i += 1
            if pending:
                i = _read_heredocs(s, i, pending)
                pending.clear()
            continue
        m = _REDIR_RX.match(s, i)
        if m and (m.group(1) == "" or m.group(2)):
            fd_text, op = m.group(1), m.group(2)
            if op == ">|":
                op = ">"
            fd = int(fd_text) if fd_text else (0 if op.startswith("<") and op != "<>" else 1)
            if op in ("<<", "<<-"):
                j = m.end()
                while j < n and s[j] in " \t":
                    j += 1
                reader.i = j
                delim_word = reader.read()
                if not delim_word.parts:
                    raise ShellSyntaxError("syntax error near unexpected token `newline'")
                doc = HereDoc(
                    delimiter="".join(p.text for p in delim_word.parts),
                    strip_tabs=op == "<<-",
                    quoted=delim_word.any_quoted(),
                )
                pending.append(doc)
                tokens.append(Token("redir", i, reader.i, op="<<", fd=fd, heredoc=doc))
                i = reader.i
                continue
            tokens.append(Token("redir", i, m.end(), op=op, fd=fd))
            i = m.end()
            continue
        for op in ("&&", "||", ";;", "|&", ";", "&", "|", "(", ")"):
            if s.startswith(op, i):
                tokens.append(Token("op", i, i + len(op), op=op))
                i += len(op)
                break
        else:
            reader.i = i
            word = reader.read()
            if reader.i == i:  # a lone metacharacter we do not know
                raise ShellSyntaxError(f"syntax error near unexpected token `{c}'")
            tokens.append(Token("word", i, reader.i, word=word))
            i = reader.i


def _read_heredocs(s: str, i: int, docs: list[HereDoc]) -> int:
    for doc in docs:
        lines: list[str] = []
        while True:
            if i >= len(s):
                break
            j = s.find("\n", i)
            line = s[i:] if j < 0 else s[i:j]
            i = len(s) if j < 0 else j + 1
            check = line.lstrip("\t") if doc.strip_tabs else line
            if check == doc.delimiter:
                break
            lines.append(check)
        _finish_heredoc(doc, "".join(line + "\n" for line in lines))
    return i


def _finish_heredoc(doc: HereDoc, body: str) -> None:
    doc.body = body
    if not doc.quoted:
        doc.word = parse_heredoc_body(body)


# -- parser ------------------------------------------------------------------------------------


class Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.pos = 0

    def parse(self) -> CmdList:
        body = self._list(stop=frozenset())
        tok = self._peek()
        if tok.kind != "eof":
            raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(tok)}'")
        return body

    # helpers
    def _peek(self) -> Token:
        return self.toks[self.pos]

    def _next(self) -> Token:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    @staticmethod
    def _show(tok: Token) -> str:
        if tok.kind == "word" and tok.word is not None:
            return tok.word.static_text() or "word"
        if tok.kind == "nl":
            return "newline"
        if tok.kind == "eof":
            return "end of file"
        return tok.op

    def _is_word(self, tok: Token, *texts: str) -> bool:
        return tok.kind == "word" and tok.word is not None and tok.word.literal() in texts

    def _skip_nl(self) -> None:
        while self._peek().kind == "nl":
            self.pos += 1

    def _expect_word(self, text: str) -> None:
        self._skip_nl()
        tok = self._next()
        if not self._is_word(tok, text):
            raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(tok)}'")

    def _body(self, stop: frozenset[str]) -> CmdList:
        """A compound command's part, which bash requires to hold at least one command."""
        body = self._list(stop)
        if not body.items:
            raise ShellSyntaxError(
                f"syntax error near unexpected token `{self._show(self._peek())}'"
            )
        return body

    def _at_stop(self, stop: frozenset[str]) -> bool:
        tok = self._peek()
        if tok.kind == "eof":
            return True
        if tok.kind == "op" and tok.op in stop:
            return True
        return tok.kind == "word" and tok.word is not None and tok.word.literal() in stop

    # grammar
    def _list(self, stop: frozenset[str]) -> CmdList:
        out = CmdList()
        while True:
            self._skip_nl()
            if self._at_stop(stop):
                return out
            tok = self._peek()
            if tok.kind == "op" and tok.op in (";", "&", ";;", ")"):
                raise ShellSyntaxError(f"syntax error near unexpected token `{tok.op}'")
            and_or = self._and_or()
            tok = self._peek()
            if tok.kind == "op" and tok.op in (";", "&"):
                self.pos += 1
                out.items.append((and_or, tok.op == "&"))
                continue
            out.items.append((and_or, False))
            if tok.kind == "nl":
                continue
            if self._at_stop(stop):
                return out
            raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(tok)}'")

    def _and_or(self) -> AndOr:
        node = AndOr(self._pipeline())
        while True:
            tok = self._peek()
            if tok.kind == "op" and tok.op in ("&&", "||"):
                self.pos += 1
                self._skip_nl()
                node.rest.append((tok.op, self._pipeline()))
                continue
            return node

    def _pipeline(self) -> Pipeline:
        negate = False
        if self._is_word(self._peek(), "!"):
            self.pos += 1
            negate = True
        cmds = [self._command()]
        while True:
            tok = self._peek()
            if tok.kind == "op" and tok.op in ("|", "|&"):
                self.pos += 1
                self._skip_nl()
                if tok.op == "|&":
                    last = cmds[-1]
                    if isinstance(last, Simple):
                        last.redirs.append(Redir(2, ">&", Word([Part("lit", "1")])))
                cmds.append(self._command())
                continue
            return Pipeline(cmds, negate)

    def _command(self) -> Command:
        tok = self._peek()
        if tok.kind == "op" and tok.op == "(":
            self.pos += 1
            body = self._body(stop=frozenset({")"}))
            close = self._next()
            if close.kind != "op" or close.op != ")":
                raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(close)}'")
            return Group(body, subshell=True, redirs=self._redirs())
        if tok.kind == "word" and tok.word is not None:
            lit = tok.word.literal()
            if lit == "{":
                self.pos += 1
                body = self._body(stop=frozenset({"}"}))
                self._expect_word("}")
                return Group(body, subshell=False, redirs=self._redirs())
            if lit == "if":
                return self._if()
            if lit == "for":
                return self._for()
            if lit in ("while", "until"):
                self.pos += 1
                cond = self._body(stop=frozenset({"do"}))
                self._expect_word("do")
                body = self._body(stop=frozenset({"done"}))
                self._expect_word("done")
                return While(cond, body, until=lit == "until", redirs=self._redirs())
            if lit in ("then", "elif", "else", "fi", "do", "done", "}", "in"):
                raise ShellSyntaxError(f"syntax error near unexpected token `{lit}'")
        return self._simple()

    def _if(self) -> If:
        self.pos += 1
        branches: list[tuple[CmdList, CmdList]] = []
        orelse: CmdList | None = None
        while True:
            cond = self._body(stop=frozenset({"then"}))
            self._expect_word("then")
            body = self._body(stop=frozenset({"elif", "else", "fi"}))
            branches.append((cond, body))
            tok = self._next()
            if self._is_word(tok, "elif"):
                continue
            if self._is_word(tok, "else"):
                orelse = self._body(stop=frozenset({"fi"}))
                self._expect_word("fi")
            elif not self._is_word(tok, "fi"):
                raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(tok)}'")
            return If(branches, orelse, redirs=self._redirs())

    def _for(self) -> For:
        self.pos += 1
        tok = self._next()
        name = tok.word.literal() if tok.kind == "word" and tok.word is not None else None
        if not name or not _NAME_RX.fullmatch(name):
            raise ShellSyntaxError(f"`{self._show(tok)}': not a valid identifier")
        words: list[Word] | None = None
        self._skip_nl()
        if self._is_word(self._peek(), "in"):
            self.pos += 1
            words = []
            while self._peek().kind == "word":
                word = self._next().word
                assert word is not None
                words.append(word)
        tok = self._peek()
        if tok.kind == "op" and tok.op == ";":
            self.pos += 1
        self._expect_word("do")
        body = self._body(stop=frozenset({"done"}))
        self._expect_word("done")
        return For(name, words, body, redirs=self._redirs())

    def _redirs(self) -> list[Redir]:
        out: list[Redir] = []
        while self._peek().kind == "redir":
            out.append(self._redir(self._next()))
        return out

    def _redir(self, tok: Token) -> Redir:
        if tok.heredoc is not None:
            return Redir(tok.fd if tok.fd is not None else 0, "<<", heredoc=tok.heredoc)
        target = self._next()
        if target.kind != "word" or target.word is None:
            raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(target)}'")
        return Redir(tok.fd if tok.fd is not None else 1, tok.op, target=target.word)

    def _simple(self) -> Simple:
        assigns: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirs: list[Redir] = []
        start = self._peek().start
        end = start
        double_bracket = False
        while True:
            tok = self._peek()
            if tok.kind == "redir" and not double_bracket:
                self.pos += 1
                redirs.append(self._redir(tok))
                end = self.toks[self.pos - 1].end
                continue
            if tok.kind == "op" and double_bracket and tok.op in ("&&", "||", "(", ")"):
                self.pos += 1
                words.append(Word([Part("lit", tok.op, quoted=True)]))
                end = tok.end
                continue
            if tok.kind == "redir" and double_bracket and tok.op in ("<", ">"):
                self.pos += 1
                words.append(Word([Part("lit", tok.op, quoted=True)]))
                end = tok.end
                continue
            if tok.kind != "word" or tok.word is None:
                break
            self.pos += 1
            end = tok.end
            word = tok.word
            if not words:
                assign = _split_assignment(word)
                if assign is not None:
                    assigns.append(assign)
                    continue
                if word.literal() == "[[":
                    double_bracket = True
            elif double_bracket and word.literal() == "]]":
                words.append(word)
                double_bracket = False
                continue
            words.append(word)
        if double_bracket:
            raise ShellSyntaxError("unexpected EOF while looking for `]]'")
        if not assigns and not words and not redirs:
            tok = self._peek()
            raise ShellSyntaxError(f"syntax error near unexpected token `{self._show(tok)}'")
        return Simple(assigns, words, redirs, self.text[start:end])


def _split_assignment(word: Word) -> tuple[str, Word] | None:
    first = word.parts[0] if word.parts else None
    if first is None or first.kind != "lit" or first.quoted:
        return None
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=", first.text)
    if not m or m.group(2):
        return None
    rest_text = first.text[m.end() :]
    parts = ([Part("lit", rest_text)] if rest_text else []) + word.parts[1:]
    return m.group(1), Word(parts)


def parse(text: str) -> CmdList:
    return Parser(text).parse()
