"""The agents' conversations in the history database, bound to one store (issue 35).

The agents keep their conversations, tool calls, allowances and token use in the same
SQLite file as the Engine (:mod:`xyclaw.store.conversations`, one writer per process). A
face reaches them through :meth:`Engine.conversations` rather than the store's module, so
the store can change its tables without the agents noticing. Each attribute is the store
module's function with the store already given.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from xyclaw.store import Store
from xyclaw.store import conversations as _conv

P = ParamSpec("P")
R = TypeVar("R")


class _Bound(Generic[P, R]):
    """A store function read through a :class:`Conversations`: the store is its first
    argument."""

    def __init__(self, fn: Callable[Concatenate[Store, P], R]) -> None:
        self._fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, owner: Conversations, kind: Any = None) -> Callable[P, R]:
        return functools.partial(self._fn, owner.store)


class Conversations:
    """The conversations of one history database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    create_conversation = _Bound(_conv.create_conversation)
    rename_conversation = _Bound(_conv.rename_conversation)
    delete_conversation = _Bound(_conv.delete_conversation)
    get_conversation = _Bound(_conv.get_conversation)
    list_conversations = _Bound(_conv.list_conversations)
    conversation_of_kind = _Bound(_conv.conversation_of_kind)
    add_usage = _Bound(_conv.add_usage)
    usage_since = _Bound(_conv.usage_since)
    add_message = _Bound(_conv.add_message)
    list_messages = _Bound(_conv.list_messages)
    message_data_values = _Bound(_conv.message_data_values)
    claim_tool_call = _Bound(_conv.claim_tool_call)

    def upsert_tool_call(
        self, conversation_id: int, call_id: str, *, now: float | None = None, **fields: Any
    ) -> int:
        """A tool call's row, made or brought up to date; its id."""
        return _conv.upsert_tool_call(self.store, conversation_id, call_id, now=now, **fields)

    fail_orphaned_tool_calls = _Bound(_conv.fail_orphaned_tool_calls)
    get_tool_call = _Bound(_conv.get_tool_call)
    list_tool_calls = _Bound(_conv.list_tool_calls)
    list_tool_calls_with_status = _Bound(_conv.list_tool_calls_with_status)
    add_allowance = _Bound(_conv.add_allowance)
    list_allowances = _Bound(_conv.list_allowances)
    allowances_for = _Bound(_conv.allowances_for)
    revoke_allowance = _Bound(_conv.revoke_allowance)
