"""A job spec file read as a tree of values that remember their line and field path.

PyYAML's own loaders throw the marks away, and a user who gets "expected a
whole number" needs the line too. So the file is composed into nodes, and every
value is built from its node here, keeping ``line`` and ``path``. Keys are the
key's source text (YAML 1.1 would read the key ``on`` as ``True``); a key that
appears twice is an error rather than a silent overwrite.

Whatever the file holds (non-UTF-8 bytes, binary junk, a syntax error, an
alias bomb), reading it raises :class:`SpecError` naming the file and line,
never a PyYAML exception.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from xyclaw.errors import JobError
from xyclaw.wording import Said, said

MAX_SPEC_BYTES = 1 << 20  # a job spec is a page of YAML; 1 MiB is a mistake
MAX_NODES = 20_000  # values built from one file, aliases counted each time they are used
MAX_DEPTH = 40


class SpecError(JobError):
    """A job spec file (or a stored spec) is broken: where, which field, what is allowed.

    ``problem``, ``allowed`` and ``hint`` may be :class:`Said` (worded in the window's
    language); the attributes ``problem``, ``allowed`` and ``file`` are the English text,
    ``problem_said`` and ``allowed_said`` what was given (to raise it again elsewhere)."""

    exit_code = 2

    def __init__(
        self,
        problem: str | Said,
        *,
        file: str | Said | None = None,
        line: int | None = None,
        field: str | None = None,
        allowed: str | Said | None = None,
        hint: str | Said | None = None,
    ) -> None:
        where: str | Said = file if file is not None else said("error.spec.file")
        if line is not None:
            where = said("error.spec.at_line", file=where, line=line)
        if field:
            label = said("error.spec.field_problem", where=where, field=field, problem=problem)
        else:
            label = said("error.spec.problem", where=where, problem=problem)
        if hint is None and allowed:
            hint = said("error.spec.allowed", allowed=allowed)
        elif hint is None:
            hint = said("error.spec.fix_hint")
        super().__init__(label, hint=hint)
        self.problem = str(problem)
        self.problem_said = problem
        self.file = None if file is None else str(file)
        self.file_said = file
        self.line = line
        self.field = field
        self.allowed = None if allowed is None else str(allowed)
        self.allowed_said = allowed


@dataclass(frozen=True, slots=True)
class SpecWarning:
    """Something in the file that XyClaw reads but does not do (or does differently);
    ``said`` is the message's worded form where the reader gave one."""

    field: str
    message: str
    line: int | None = None
    file: str | None = None
    said: Said | None = None

    def __str__(self) -> str:
        return self.in_language("en")

    def in_language(self, language: str) -> str:
        where: str | Said = self.file or said("error.spec.file")
        if self.line is not None:
            where = said("error.spec.at_line", file=where, line=self.line)
        message: str | Said = self.said or self.message
        return said(
            "error.spec.field_problem", where=where, field=self.field, problem=message
        ).in_language(language)

    @classmethod
    def of(cls, node: YNode, message: str | Said, file: str | None) -> SpecWarning:
        """A warning about ``node``'s field and line."""
        worded = message if isinstance(message, Said) else None
        return cls(node.path, str(message), node.line, file, worded)


@dataclass(frozen=True, slots=True)
class YNode:
    """One value of the file: a scalar, a ``dict[str, YNode]`` or a ``list[YNode]``.

    ``raw`` is a scalar's source text (``1.10`` stays ``"1.10"`` for an
    environment value); ``quoted`` says it was written in quotes, so it is a
    string whatever it looks like.
    """

    value: object
    line: int
    path: str
    raw: str | None = None
    quoted: bool = False

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    @property
    def is_scalar(self) -> bool:
        return not isinstance(self.value, dict | list)

    def items(self) -> Iterator[tuple[str, YNode]]:
        """The entries of a mapping node (none for other nodes)."""
        if isinstance(self.value, dict):
            yield from self.value.items()

    def get(self, key: str) -> YNode | None:
        if isinstance(self.value, dict):
            found = self.value.get(key)
            return found if isinstance(found, YNode) else None
        return None

    def elements(self) -> list[YNode]:
        if isinstance(self.value, list):
            return [v for v in self.value if isinstance(v, YNode)]
        return []

    def text(self) -> str:
        """The scalar's source text (what the user typed), ``""`` for null."""
        if self.value is None:
            return ""
        if self.raw is not None:
            return self.raw
        return str(self.value)

    def with_path(self, path: str) -> YNode:
        return YNode(self.value, self.line, path, self.raw, self.quoted)


def synthetic(value: object, like: YNode, path: str | None = None) -> YNode:
    """A node made by a translation (SkyPilot -> XyClaw) that points at the source line."""
    raw = None if isinstance(value, dict | list) or value is None else str(value)
    return YNode(value, like.line, path or like.path, raw, isinstance(value, str))


def decode_spec_bytes(data: bytes, file: str) -> str:
    """The file's text; SpecError for binary or non-UTF-8 content, with the line."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise SpecError(
                said("error.spec.not_utf16"), file=file, hint=said("error.spec.save_utf8")
            ) from exc
    nul = data.find(b"\x00")
    if nul >= 0:
        raise SpecError(
            said("error.spec.binary", offset=nul),
            file=file,
            line=data.count(b"\n", 0, nul) + 1,
            hint=said("error.spec.binary_hint"),
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SpecError(
            said("error.spec.not_utf8", byte=data[exc.start], offset=exc.start),
            file=file,
            line=line,
            hint=said("error.spec.not_utf8_hint"),
        ) from exc
    return text


def read_spec_file(path: Path) -> YNode:
    """The file's one YAML document as a located tree."""
    file = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(
                said("error.spec.too_big", size=size, limit=MAX_SPEC_BYTES),
                file=file,
                hint=said("error.spec.too_big_hint"),
            )
        data = path.read_bytes()
    except IsADirectoryError as exc:
        raise SpecError(said("error.spec.folder"), file=file) from exc
    except FileNotFoundError as exc:
        raise SpecError(
            said("error.spec.missing"), file=file, hint=said("error.spec.missing_hint")
        ) from exc
    except OSError as exc:
        raise SpecError(
            said("error.spec.unreadable", reason=str(exc.strerror or exc)),
            file=file,
            hint=said("error.spec.unreadable_hint"),
        ) from exc
    return parse_spec_text(decode_spec_bytes(data, file), file)


def parse_spec_text(text: str, file: str = "job spec") -> YNode:
    """YAML text -> located tree; SpecError for syntax errors, several documents, aliases
    that expand too far, or anything but a mapping at the top."""
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # control characters, checked before parsing
        raise SpecError(
            said("error.spec.bad_character", character=repr(exc.character)),
            file=file,
            line=text.count("\n", 0, max(0, exc.position)) + 1,
            hint=said("error.spec.bad_character_hint"),
        ) from exc
    try:
        try:
            root = loader.get_single_node()
        except yaml.composer.ComposerError as exc:
            if "single document" in str(exc.context or ""):
                mark = exc.problem_mark
                raise SpecError(
                    said("error.spec.two_documents"),
                    file=file,
                    line=mark.line + 1 if mark else None,
                    hint=said("error.spec.two_documents_hint"),
                ) from exc
            raise
        if root is None:
            raise SpecError(said("error.spec.empty"), file=file, hint=said("error.spec.empty_hint"))
        builder = _Builder(loader, file)
        tree = builder.build(root, "", 0)
    except yaml.MarkedYAMLError as exc:
        # "while scanning a quoted scalar": where the scalar starts, not where the file ends
        scanning = str(exc.context or "").startswith("while scanning")
        mark = (exc.context_mark if scanning else None) or exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        raise SpecError(
            said("error.spec.not_yaml", problem=problem),
            file=file,
            line=mark.line + 1 if mark else None,
            hint=said("error.spec.not_yaml_hint"),
        ) from exc
    except yaml.reader.ReaderError as exc:  # a bad character met while reading on
        raise SpecError(
            said("error.spec.bad_character", character=repr(exc.character)),
            file=file,
            line=text.count("\n", 0, max(0, exc.position)) + 1,
            hint=said("error.spec.remove_character"),
        ) from exc
    except yaml.YAMLError as exc:
        raise SpecError(
            f"is not valid YAML: {exc}", file=file, hint="save the spec as plain UTF-8 text"
        ) from exc
    except RecursionError as exc:
        raise SpecError(said("error.spec.too_deep"), file=file) from exc
    finally:
        loader.dispose()
    if not tree.is_map:
        raise SpecError(
            said("error.spec.not_mapping", kind=_kind(tree)),
            file=file,
            line=tree.line,
            hint=said("error.spec.not_mapping_hint"),
        )
    return tree


def _kind(node: YNode) -> Said:
    if node.is_list:
        return said("error.spec.kind_list")
    if node.value is None:
        return said("error.spec.kind_nothing")
    return said("error.spec.kind_text", text=repr(node.text()[:60]))


class _Builder:
    def __init__(self, loader: yaml.SafeLoader, file: str) -> None:
        self.loader = loader
        self.file = file
        self.count = 0

    def build(self, node: yaml.Node, path: str, depth: int) -> YNode:
        self.count += 1
        line = node.start_mark.line + 1
        if self.count > MAX_NODES:
            raise SpecError(
                said("error.spec.too_many_values", limit=MAX_NODES),
                file=self.file,
                line=line,
                field=path or None,
            )
        if depth > MAX_DEPTH:
            raise SpecError(
                said("error.spec.too_many_levels", limit=MAX_DEPTH),
                file=self.file,
                line=line,
                field=path or None,
            )
        if isinstance(node, yaml.MappingNode):
            self.loader.flatten_mapping(node)  # resolves `<<: *defaults`
            out: dict[str, YNode] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise SpecError(
                        said("error.spec.key_not_name"),
                        file=self.file,
                        line=key_node.start_mark.line + 1,
                        field=path or None,
                    )
                key = str(key_node.value)
                sub = f"{path}.{key}" if path else key
                if key in out:
                    raise SpecError(
                        said("error.spec.twice", line=out[key].line),
                        file=self.file,
                        line=key_node.start_mark.line + 1,
                        field=sub,
                        hint=said("error.spec.twice_hint"),
                    )
                child = self.build(value_node, sub, depth + 1)
                # errors about a value point at its key's line (where the user looks)
                key_line = key_node.start_mark.line + 1
                out[key] = YNode(child.value, key_line, sub, child.raw, child.quoted)
            return YNode(out, line, path)
        if isinstance(node, yaml.SequenceNode):
            items = [
                self.build(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node.value)
            ]
            return YNode(items, line, path)
        assert isinstance(node, yaml.ScalarNode)
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise SpecError(
                said("error.spec.value_unreadable", problem=str(exc.problem)),
                file=self.file,
                line=line,
                field=path or None,
                hint=said("error.spec.value_unreadable_hint"),
            ) from exc
        except ValueError as exc:  # PyYAML raises it for dates like 2024-99-99
            raise SpecError(
                said("error.spec.value_bad", value=repr(node.value), reason=str(exc)),
                file=self.file,
                line=line,
                field=path or None,
                hint=said("error.spec.quote_hint"),
            ) from exc
        return YNode(value, line, path, str(node.value), node.style in ("'", '"', "|", ">"))
