"""``Run`` and ``Invocation``: one request's identity, context and owned resources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from ._closing import DEFAULT_CLOSE_TIMEOUT, check_close_timeout, close_after, close_all, closer
from ._context import RunContext
from ._errors import ConfigurationError
from ._frozen import freeze
from ._model import Message

__all__ = ["Invocation", "Run"]

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Invocation:
    """Values the application supplies for one run: use them for authorization.

    ``context`` is deeply read-only; the model can never set any of this.
    """

    actor_id: Any = None
    context: Mapping[str, Any] | None = field(default_factory=dict)

    def __post_init__(self) -> None:
        context = {} if self.context is None else self.context
        if not isinstance(context, Mapping):
            raise TypeError(f"Invocation context must be a mapping, not {type(context).__name__}")
        object.__setattr__(self, "context", freeze(context))


class Run:
    """One run: its invocation, its RunContext, and the resources it must close.

    An agent run also records the conversation (``messages``) and the final
    ``response``.
    """

    # Seconds each resource's close() may take when the run ends; past it the
    # resource is abandoned and named in the CleanupError.
    close_timeout: float = DEFAULT_CLOSE_TIMEOUT

    def __init__(
        self,
        invocation: Invocation | None = None,
        context: RunContext | None = None,
        *,
        close_timeout: float | None = None,
    ) -> None:
        self.close_timeout = check_close_timeout(
            type(self).close_timeout if close_timeout is None else close_timeout, "Run"
        )
        self.invocation = Invocation() if invocation is None else invocation
        self.context = RunContext() if context is None else context
        self.response: str | None = None
        self.messages: tuple[Message, ...] = ()
        self._resources: list[object] = []
        self._closed = False

    def __repr__(self) -> str:
        return f"<Run actor_id={self.invocation.actor_id!r} resources={len(self._resources)}>"

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def resources(self) -> tuple[object, ...]:
        """What the run will close when it ends, oldest first."""
        return tuple(self._resources)

    def register(self, resource: R) -> R:
        """Close ``resource`` when the run ends: its ``aclose()``, else its ``close()``.

        ``close()`` may be sync or async.
        """
        if closer(resource) is None:
            raise TypeError(f"{type(resource).__name__} has no aclose() or close() method")
        if self._closed:
            raise ConfigurationError("The run is closed; it cannot own new resources")
        self._resources.append(resource)
        return resource

    async def aclose(self) -> None:
        """Close every registered resource, newest first; ``CleanupError`` if any failed."""
        if self._closed:
            return
        self._closed = True
        resources, self._resources = self._resources, []
        await close_all(resources, "the run's resources", each_within=self.close_timeout)

    async def __aenter__(self) -> Run:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await close_after(exc, self.aclose)
