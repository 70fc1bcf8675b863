"""Hostile tool-call arguments from a model: every one is an error result, the run goes on.

Issue 7, items 1 and 2 for ``lg.ToolCall``: arguments nested thousands of
levels deep, cyclic, not JSON, or not an object at all reach the model as an
invalid-input result; no recursion, no crash, no tool call.
"""

import re
import subprocess
import sys
import textwrap

import pytest

import littleghost as lg
from littleghost_testing import ScriptedModel

pytestmark = pytest.mark.anyio

CALLS: list[object] = []


class NoteTool(lg.Tool):
    description = "Store a note."
    input_schema = {"type": "object", "properties": {"note": {}}}

    def call(self, input):
        CALLS.append(input)
        return "stored"


class NoteAgent(lg.Agent):
    tools = [NoteTool]


@pytest.fixture(autouse=True)
def _clear_calls():
    CALLS.clear()


def nested(levels: int) -> dict:
    """``{"note": [[[...]]]}`` with ``levels`` containers in all, built without recursion."""
    inner: list = []
    for _ in range(levels - 2):
        inner = [inner]
    return {"note": inner}


def cyclic() -> dict:
    arguments: dict = {"note": {}}
    arguments["note"]["again"] = arguments
    return arguments


class ExplodingDict(dict):
    def __iter__(self):
        raise RuntimeError("no iteration today")

    def keys(self):
        raise RuntimeError("no keys today")


class Answering:
    """A broken provider: gives the same answer, unchecked, to every request."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    async def respond(self, request: lg.ModelRequest) -> object:
        return self.answer


async def ask_with(arguments: object) -> lg.Run:
    model = ScriptedModel(
        lg.ModelResponse(tool_calls=[lg.ToolCall("1", "note_tool", arguments)]), "done"
    )
    return await NoteAgent.ask_async("store it", model=model)


def tool_result(run: lg.Run) -> lg.Message:
    (message,) = [m for m in run.messages if m.role == "tool"]
    return message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (nested(lg.ToolCall.max_depth + 1), "nested deeper than 200 levels"),
        (nested(100_000), "nested deeper than 200 levels"),
        (nested(lg.Tool.max_input_depth + 1), "nested deeper than 64 levels"),
        (cyclic(), "(a cycle)"),
        ({"note": {1, 2}}, "$.note is not a JSON value"),
        ({"note": float("nan")}, "finite number"),
        ({"note": "\ud83d"}, "$.note"),
        ({7: "seven"}, "key that is not a string"),
        (ExplodingDict(note=1), "cannot be read as JSON"),
        (["note"], "arguments must be a JSON object, not an array"),
        ("note", "arguments must be a JSON object, not a string"),
        (None, "arguments must be a JSON object, not null"),
        (3, "arguments must be a JSON object, not a number"),
    ],
    ids=[
        "deeper-than-ToolCall.max_depth",
        "100000-levels",
        "deeper-than-Tool.max_input_depth",
        "cycle",
        "set",
        "nan",
        "lone-surrogate",
        "int-key",
        "raising-dict",
        "list",
        "string",
        "null",
        "number",
    ],
)
async def test_bad_arguments_are_an_invalid_input_result_and_the_run_goes_on(
    arguments, expected, lg_leaks
):
    snapshot = lg_leaks()

    run = await ask_with(arguments)

    message = tool_result(run)
    assert message.is_error
    assert message.content.startswith("Invalid tool input: ")
    assert expected in message.content
    assert len(message.content) < 1024
    assert run.response == "done"
    assert CALLS == []
    await snapshot.assert_released()


def test_unsafe_arguments_are_not_kept_and_the_call_stays_printable():
    call = lg.ToolCall("1", "note_tool", nested(100_000))

    assert call.arguments is None
    assert call.problem == "$ is nested deeper than 200 levels"
    assert "nested deeper" in repr(call)
    assert call == lg.ToolCall("1", "note_tool", nested(5_000))
    raw = lg.ToolCall("2", "note_tool", '{"note": ', problem="arguments are not valid JSON")
    assert (raw.arguments, raw.problem) == ('{"note": ', "arguments are not valid JSON")


async def test_an_unknown_tool_with_bad_arguments_is_reported_as_unknown(lg_leaks):
    snapshot = lg_leaks()
    model = ScriptedModel(
        lg.ModelResponse(tool_calls=[lg.ToolCall("1", "no_such_tool", nested(10_000))]), "done"
    )

    run = await NoteAgent.ask_async("go", model=model)

    assert tool_result(run).content == "Unknown tool: no_such_tool"
    await snapshot.assert_released()


async def test_good_and_bad_calls_in_one_turn_each_get_their_own_result(lg_leaks):
    snapshot = lg_leaks()
    model = ScriptedModel(
        lg.ModelResponse(
            tool_calls=[
                lg.ToolCall("1", "note_tool", cyclic()),
                lg.ToolCall("2", "note_tool", {"note": "fine"}),
                lg.ToolCall("3", "note_tool", "[1, 2"),
            ]
        ),
        "done",
    )

    run = await NoteAgent.ask_async("go", model=model)

    results = [(m.tool_call_id, m.is_error, m.content) for m in run.messages if m.role == "tool"]
    assert results == [
        ("1", True, "Invalid tool input: $.note.again refers back to $ (a cycle)"),
        ("2", False, "stored"),
        ("3", True, "Invalid tool input: arguments must be a JSON object, not a string"),
    ]
    assert CALLS == [{"note": "fine"}]
    await snapshot.assert_released()


async def test_a_model_whose_text_is_not_a_string_is_a_provider_error(lg_leaks):
    snapshot = lg_leaks()
    with pytest.raises(lg.ProviderError, match="text is dict, not str"):
        await NoteAgent.ask_async("go", model=Answering(lg.ModelResponse(text={"a": 1})))  # type: ignore[arg-type]
    await snapshot.assert_released()


async def test_a_model_that_returns_something_else_than_tool_calls_is_a_provider_error(lg_leaks):
    snapshot = lg_leaks()
    model = Answering(lg.ModelResponse(tool_calls=[{"name": "note_tool"}]))  # type: ignore[list-item]

    with pytest.raises(lg.ProviderError, match="asked for a dict, not a ToolCall"):
        await NoteAgent.ask_async("go", model=model)
    await snapshot.assert_released()


# Memory and time bounds for the child: a crash (SIGSEGV) or a runaway shows as a failure.
CHILD_MEMORY_BYTES = 1024 * 1024 * 1024
CHILD_SECONDS = 60

SMALL_STACK_RUN = """
import resource, threading
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
import littleghost as lg
from littleghost_testing import ScriptedModel

class NoteTool(lg.Tool):
    description = "Store a note."
    def call(self, input):
        return "stored"

class NoteAgent(lg.Agent):
    tools = [NoteTool]

def deep(levels):
    inner = []
    for _ in range(levels):
        inner = [inner]
    return inner

answers = []

def run():
    calls = [
        lg.ToolCall(str(n), "note_tool", {{"note": deep(levels)}})
        for n, levels in enumerate([60, 150, 1_000, 30_000])
    ]
    model = ScriptedModel(lg.ModelResponse(tool_calls=calls), "done")
    result = NoteAgent.ask("go", model=model)
    answers.extend(m.content for m in result.messages if m.role == "tool")

threading.stack_size(256 * 1024)
worker = threading.Thread(target=run)
worker.start()
worker.join()
print("|".join(answers))
"""


def test_deep_arguments_cannot_crash_a_thread_with_a_small_stack():
    script = textwrap.dedent(SMALL_STACK_RUN).format(memory=CHILD_MEMORY_BYTES)

    child = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=CHILD_SECONDS
    )

    assert child.returncode == 0, child.stderr[-2000:]
    answers = child.stdout.strip().split("|")
    assert answers[0] == "stored"
    assert re.fullmatch(r"Invalid tool input: \S+ is nested deeper than 64 levels", answers[1])
    assert answers[2:] == ["Invalid tool input: $ is nested deeper than 200 levels"] * 2
