"""``OpenAIChatModel``: the Chat Completions tool-calling API over httpx.

OpenAI, vLLM, Ollama and llama.cpp servers all speak this format, so one
client reaches hosted and local models. Streaming is not used: the agent
needs whole answers.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from typing import Any

import anyio

from .._errors import ConfigurationError, ProtocolError, ProviderError
from .._model import Message, ModelRequest, ModelResponse, ToolCall
from .._validation import json_problem
from ._guard import check_model_requests_allowed

try:
    import httpx
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError("OpenAIChatModel needs httpx: pip install 'littleghost[openai]'") from missing

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "DEFAULT_TIMEOUT", "OpenAIChatModel"]

# One request may take this long: local models on a CPU answer slowly.
DEFAULT_TIMEOUT = 60.0
# Chat Completions answers are a few KiB; this leaves room for long texts, not floods.
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
# How much of an error body an exception quotes: enough to read, never a flood.
_EXCERPT_CHARS = 300
# Any run of this many characters of the API key in an error text is redacted: a
# server may echo the key whole, cut, or with its line breaks escaped.
_KEY_FRAGMENT_CHARS = 8
_REDACTED = "[redacted]"


class OpenAIChatModel:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``timeout`` bounds one whole request (connect, send, wait, read), in
    seconds; ``max_response_bytes`` bounds the body read. Exceeding either,
    an HTTP error status, or a body that is not a Chat Completions answer is a
    ``ProviderError`` (``ProtocolError`` for malformed answers). Tool calls
    whose arguments are not valid JSON reach the agent with a ``problem``, so
    the model reads an error result and can try again. Pass ``http_client``
    to reuse connections; otherwise each request opens and closes its own.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        options: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ConfigurationError("model must be a non-empty str (the provider's model name)")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"base_url must be an http(s) URL, not {base_url!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ConfigurationError(f"timeout must be a positive number of seconds: {timeout!r}")
        limit = max_response_bytes
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ConfigurationError(f"max_response_bytes must be a positive int: {limit!r}")
        reserved = {"model", "messages", "tools"} & set(options or {})
        if reserved:
            raise ConfigurationError(f"options cannot set {sorted(reserved)}: the agent sets them")
        self.model = model
        self.base_url = base_url
        self.options = dict(options or {})
        self.timeout = float(timeout)
        self.max_response_bytes = limit
        self._api_key = api_key
        self._http_client = http_client

    def __repr__(self) -> str:
        # Errors quote it: no API key, and no credentials or query from the URL either.
        return f"<OpenAIChatModel {self.model!r} at {_public(self.base_url)}>"

    @property
    def endpoint(self) -> str:
        """``{base_url}/chat/completions``, keeping a query the server needs (``api-version``)."""
        url = httpx.URL(self.base_url)
        return str(url.copy_with(path=url.path.rstrip("/") + "/chat/completions"))

    async def respond(self, request: ModelRequest) -> ModelResponse:
        """Send the conversation and the tool specifications; map the answer back."""
        check_model_requests_allowed(repr(self))
        body = json.dumps(self.payload(request), ensure_ascii=False).encode()
        failure: str | None = None
        status, raw = 0, b""
        try:
            with anyio.fail_after(self.timeout):
                status, raw = await self._post(body)
        except TimeoutError:
            failure = f"did not answer within {self.timeout:g} s (OpenAIChatModel timeout)"
        except httpx.HTTPError as error:
            # httpx quotes a header it refused, the key included: only a redacted copy
            # of its message is kept, and it is raised outside the handler so that
            # neither __cause__ nor __context__ carries the original.
            failure = f"could not be reached: {type(error).__name__}: {_cut(str(error))}"
        if failure is None and not 200 <= status < 300:
            # httpx follows no redirects: a 3xx, even with a JSON body, is not the answer.
            failure = f"answered HTTP {status}: {_error_excerpt(raw)}"
        if failure is not None:
            raise ProviderError(f"{self!r} {self._redacted(failure)}")
        return parse_response(raw)

    def _redacted(self, text: str) -> str:
        """``text`` without the API key or any run of its characters a server echoed."""
        return _redact_secret(text, self._api_key) if self._api_key else text

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        """The Chat Completions request body for ``request``."""
        messages: list[dict[str, Any]] = []
        if request.instructions:
            messages.append({"role": "system", "content": request.instructions})
        messages.extend(_wire_message(message) for message in request.messages)
        body: dict[str, Any] = {**self.options, "model": self.model, "messages": messages}
        if request.tools:
            body["tools"] = [_wire_tool(spec) for spec in request.tools]
        return body

    async def _post(self, body: bytes) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if self._http_client is not None:
            return await self._exchange(self._http_client, body, headers)
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            return await self._exchange(client, body, headers)

    async def _exchange(
        self, client: httpx.AsyncClient, body: bytes, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        """Read the answer, stopping as soon as it passes ``max_response_bytes``."""
        async with client.stream("POST", self.endpoint, content=body, headers=headers) as answer:
            chunks: list[bytes] = []
            size = 0
            async for chunk in answer.aiter_bytes():
                size += len(chunk)
                if size > self.max_response_bytes:
                    raise ProtocolError(
                        f"{self!r} sent more than {self.max_response_bytes} bytes "
                        "(OpenAIChatModel max_response_bytes)"
                    )
                chunks.append(chunk)
            return answer.status_code, b"".join(chunks)


def _redact_secret(text: str, secret: str) -> str:
    """``text`` with ``secret``, and every run of ``_KEY_FRAGMENT_CHARS`` of its characters
    (raw or escaped as ``repr`` and JSON write them), replaced by ``[redacted]``."""
    forms = {secret, repr(secret)[1:-1], json.dumps(secret)[1:-1]}
    width = min(_KEY_FRAGMENT_CHARS, *(len(form) for form in forms))
    fragments = {form[start : start + width] for form in forms for start in range(len(form))}
    fragments = {fragment for fragment in fragments if len(fragment) == width}
    hidden = [False] * len(text)
    for start in range(len(text) - width + 1):
        if text[start : start + width] in fragments:
            hidden[start : start + width] = [True] * width
    parts: list[str] = []
    for index, character in enumerate(text):
        if not hidden[index]:
            parts.append(character)
        elif index == 0 or not hidden[index - 1]:
            parts.append(_REDACTED)
    return "".join(parts)


def _public(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": _wire_arguments(call)},
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.content}


def _wire_arguments(call: ToolCall) -> str:
    # Raw text the model sent (even invalid JSON) goes back as it came.
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _wire_tool(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec["name"],
            "description": spec.get("description") or "",
            "parameters": spec["input_schema"],
        },
    }


def parse_response(raw: bytes) -> ModelResponse:
    """A Chat Completions body as a ModelResponse; ``ProtocolError`` names what is wrong."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ProtocolError(f"The model's answer is not JSON ({_reason(error)})") from None
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProtocolError("The model's answer has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ProtocolError("The model's answer has no message")
    text = message.get("content")
    if text is not None and not isinstance(text, str):
        raise ProtocolError(f"The model's message content is {type(text).__name__}, not text")
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ProtocolError("The model's tool_calls are not a list")
    return ModelResponse(text, tuple(_tool_call(call, index) for index, call in enumerate(calls)))


def _tool_call(call: Any, index: int) -> ToolCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise ProtocolError(f"Tool call {index} of the model's answer has no function name")
    call_id = call.get("id", f"call_{index}")
    if not isinstance(call_id, str):
        raise ProtocolError(f"Tool call {index} of the model's answer has a non-text id")
    arguments, problem = _decode_arguments(function.get("arguments"))
    return ToolCall(call_id, function["name"], arguments, problem)


def _decode_arguments(raw: Any) -> tuple[Any, str | None]:
    """The arguments value and, when the model got them wrong, why (kept as raw text)."""
    if raw is None or raw == "":
        return {}, None  # servers send nothing for tools without parameters
    if not isinstance(raw, str):
        return raw, None  # some servers send the object itself; ToolCall checks it
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as error:
        return raw, f"arguments are not valid JSON ({_reason(error)})"
    problem = json_problem(value, max_depth=ToolCall.max_depth)
    return (raw, problem) if problem is not None else (value, None)


def _reason(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply to parse"
    return str(error)[:_EXCERPT_CHARS]


def _error_excerpt(raw: bytes) -> str:
    """The API's error message (``{"error": {"message": ...}}``), or the start of the body."""
    text = raw[: _EXCERPT_CHARS * 4].decode("utf-8", "replace")
    try:
        error = json.loads(raw)["error"]
        text = error["message"] if isinstance(error, dict) else error
    except (ValueError, RecursionError, KeyError, TypeError):
        pass
    return _cut(str(text))


def _cut(text: str) -> str:
    return text if len(text) <= _EXCERPT_CHARS else text[:_EXCERPT_CHARS] + "..."
