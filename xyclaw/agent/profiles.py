"""Agents as Markdown files: YAML front matter (name, description, tools, model) + the prompt.

The bundled ``agents/`` folder is read first, then ``<config folder>/agents/*.md``:
a user file with a bundled agent's name replaces it, any other name adds an agent.
A broken user file is skipped with a problem the app can show; it never stops the app.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from xyclaw.agent.brain import AgentProfile
from xyclaw.errors import AgentError
from xyclaw.paths import bundled
from xyclaw.wording import said

log = logging.getLogger(__name__)

SUPERVISOR = "supervisor"
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)


@dataclass(frozen=True)
class AgentSet:
    """The agents in force, and what was wrong with the files that were skipped."""

    agents: dict[str, AgentProfile]
    problems: list[str] = field(default_factory=list)

    @property
    def supervisor(self) -> AgentProfile:
        return self.agents[SUPERVISOR]

    @property
    def specialists(self) -> list[AgentProfile]:
        return [a for name, a in self.agents.items() if name != SUPERVISOR]

    def owner_of(self, tool: str) -> str | None:
        """The first specialist allowed to call ``tool`` (bundled order)."""
        for agent in self.specialists:
            if tool in agent.tools:
                return agent.name
        return None


def parse_profile(text: str, source: str, known_tools: Iterable[str]) -> AgentProfile:
    """One agent file's text; raises :class:`AgentError` naming the file and the field."""
    match = _FRONT.match(text.lstrip("\ufeff"))
    if match is None:
        raise AgentError(
            said("error.agent_file.no_front", source=source),
            hint=said("error.agent_file.no_front_hint"),
        )
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise AgentError(said("error.agent_file.bad_yaml", source=source, why=str(exc))) from exc
    if not isinstance(meta, dict):
        raise AgentError(said("error.agent_file.not_mapping", source=source))
    name = meta.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise AgentError(
            said("error.agent_file.bad_name", source=source, name=repr(name)),
            hint=said("error.agent_file.name_hint"),
        )
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise AgentError(
            said("error.agent_file.no_description", source=source),
            hint=said("error.agent_file.description_hint"),
        )
    tools = meta.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise AgentError(said("error.agent_file.tools_list", source=source))
    known = set(known_tools)
    unknown = [t for t in tools if t not in known]
    if unknown:
        raise AgentError(
            said("error.agent_file.unknown_tools", source=source, tools=", ".join(unknown)),
            hint=said("error.agent_file.known_tools", tools=", ".join(sorted(known))),
        )
    model = meta.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentError(said("error.agent_file.model", source=source))
    extra = set(meta) - {"name", "description", "tools", "model"}
    if extra:
        log.info("%s: ignoring unknown fields %s", source, sorted(extra))
    prompt = match.group(2).strip()
    if not prompt:
        raise AgentError(said("error.agent_file.empty_prompt", source=source))
    return AgentProfile(
        name=name,
        description=description.strip(),
        tools=tuple(dict.fromkeys(tools)),
        prompt=prompt,
        model=model or None,
        source=source,
    )


def load_agents(
    known_tools: Iterable[str],
    user_dir: Path | None = None,
    bundled_dir: Path | None = None,
) -> AgentSet:
    """The bundled agents, then the user's files over them."""
    known = list(known_tools)
    folder = bundled_dir or bundled("agents")
    agents: dict[str, AgentProfile] = {}
    for path in sorted(folder.glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        # A broken bundled file is a bug in XyClaw: let it raise.
        profile = parse_profile(path.read_text(encoding="utf-8"), str(path), known)
        agents[profile.name] = profile
    problems: list[str] = []
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.md")):
            try:
                profile = parse_profile(path.read_text(encoding="utf-8"), str(path), known)
            except (AgentError, OSError, UnicodeDecodeError) as exc:
                problems.append(str(exc))
                log.warning("skipping agent file: %s", exc)
                continue
            agents[profile.name] = profile
    if SUPERVISOR not in agents:
        raise AgentError(
            said("error.agent_file.no_supervisor"),
            hint=said("error.agent_file.no_supervisor_hint"),
        )
    # The supervisor routes; it never calls tools, whatever a file says.
    sup = agents[SUPERVISOR]
    if sup.tools:
        problems.append(f"{sup.source}: the supervisor may not call tools; ignored {sup.tools}")
        agents[SUPERVISOR] = AgentProfile(
            sup.name, sup.description, (), sup.prompt, sup.model, sup.source
        )
    return AgentSet(agents, problems)
