"""Every ```python block in README.md and docs/*.md runs, so the docs cannot rot.

The blocks of one file run in order in one shared module namespace, like one
script read top to bottom. Top-level ``await`` is allowed: the whole file runs
inside an anyio event loop on asyncio, and again on trio up to its last block
that awaits (the blocks after it are plain code, which no event loop can tell
apart), so examples must use anyio (not asyncio) to sleep, spawn or time out.
A block whose info string
is ```python no-run is only shown, never run: keep that for pseudo-code.
A failure names the file and the line of the block that failed.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import anyio
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted(
    path.relative_to(ROOT).as_posix()
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    if path.is_file()
)
# A block hanging on an await fails instead of stalling the whole suite.
BLOCK_TIMEOUT = 60.0

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it opens, its info string, and its code."""

    line: int  # 1-based line of the opening fence
    info: tuple[str, ...]
    source: str


def fenced_blocks(text: str, name: str) -> list[Block]:
    """The fenced blocks of a Markdown file, with their code dedented to the fence."""
    blocks: list[Block] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        opening = _FENCE.match(lines[number])
        number += 1
        if opening is None or ("`" in opening["info"] and opening["fence"][0] == "`"):
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        start, body = number, []
        while True:
            if number == len(lines):
                raise ValueError(f"{name}:{start}: the code fence opened here is never closed")
            line = lines[number]
            number += 1
            closing = _FENCE.match(line)
            if (
                closing is not None
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
                and not closing["info"].strip()
            ):
                break
            body.append(line[min(indent, len(line) - len(line.lstrip())) :])
        blocks.append(Block(start, tuple(opening["info"].split()), "\n".join(body) + "\n"))
    return blocks


def runnable_blocks(path: Path, name: str) -> list[Block]:
    """The ```python blocks of ``path`` that are meant to run."""
    return [
        block
        for block in fenced_blocks(path.read_text(encoding="utf-8"), name)
        if block.info[:1] == ("python",) and "no-run" not in block.info[1:]
    ]


def compile_block(block: Block, filename: str) -> types.CodeType:
    """Compile with the Markdown file's own line numbers, top-level ``await`` allowed."""
    try:
        tree = ast.parse(block.source, filename)
    except SyntaxError as error:  # point at the line in the document, not in the block
        error.lineno = None if error.lineno is None else error.lineno + block.line
        error.end_lineno = None if error.end_lineno is None else error.end_lineno + block.line
        raise
    ast.increment_lineno(tree, block.line)
    # dont_inherit: the docs must not pick up this module's ``from __future__`` imports.
    return compile(tree, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)


def awaits(block: Block) -> bool:
    """Whether the block awaits at top level (a block that does not compile counts as not)."""
    try:
        code = compile_block(block, "<document>")
    except SyntaxError:
        return False
    return bool(code.co_flags & inspect.CO_COROUTINE)


def through_last_await(blocks: list[Block]) -> list[Block]:
    """The blocks up to the last that awaits: all a second event loop needs to run again."""
    awaiting = [index for index, block in enumerate(blocks) if awaits(block)]
    return blocks[: awaiting[-1] + 1] if awaiting else []


async def run_document(
    path: Path, name: str, blocks: list[Block] | None = None
) -> dict[str, object]:
    """Run ``blocks`` (by default every runnable block of ``path``) in order.

    Returns their shared namespace.
    """
    blocks = runnable_blocks(path, name) if blocks is None else blocks
    # A real module, so classes, dataclasses and pydantic models defined in
    # the docs resolve their module the way they would in a user's script.
    module = types.ModuleType("littleghost_docs_" + re.sub(r"\W", "_", path.stem))
    sys.modules[module.__name__] = module
    try:
        for block in blocks:
            await _run_block(block, path, name, module.__dict__)
    finally:
        sys.modules.pop(module.__name__, None)
    return module.__dict__


async def _run_block(block: Block, path: Path, name: str, namespace: dict[str, object]) -> None:
    try:
        code = compile_block(block, str(path))
    except SyntaxError as error:
        _fail(block, name, traceback.format_exception_only(error))
    try:
        with anyio.fail_after(BLOCK_TIMEOUT):
            if code.co_flags & inspect.CO_COROUTINE:
                await eval(code, namespace)
            else:
                exec(code, namespace)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt | anyio.get_cancelled_exc_class()):
            raise
        # Start the traceback at the document: this runner's frame is noise.
        frames = error.__traceback__.tb_next if error.__traceback__ else None
        _fail(block, name, traceback.format_exception(type(error), error, frames))


def _fail(block: Block, name: str, details: list[str]) -> NoReturn:
    message = f"the ```python block at {name}:{block.line} failed:\n{''.join(details)}"
    raise pytest.fail.Exception(message, pytrace=False) from None


# Pages without examples (the performance tables) have nothing to run.
DOCUMENTS_WITH_CODE = [name for name in DOCUMENTS if runnable_blocks(ROOT / name, name)]
# Every page runs on asyncio; a page that awaits runs again on trio, up to its last await.
RUNS = [(name, "asyncio") for name in DOCUMENTS_WITH_CODE] + [
    (name, "trio")
    for name in DOCUMENTS_WITH_CODE
    if through_last_await(runnable_blocks(ROOT / name, name))
]


@pytest.mark.anyio
@pytest.mark.parametrize(("document", "anyio_backend"), RUNS)
async def test_document_examples_run(document: str, anyio_backend: str) -> None:
    blocks = runnable_blocks(ROOT / document, document)
    if anyio_backend == "trio":
        blocks = through_last_await(blocks)
    await run_document(ROOT / document, document, blocks)


# -- the runner itself ---------------------------------------------------------

SAMPLE = """\
# Title

```python
x = 1
```

````markdown
```python
raise SystemExit("only shown")
```
````

1. In a list:

   ```python
   x += 1
   ```

~~~python no-run
pseudo code
~~~

```bash
exit 1
```
"""


def test_every_guide_has_examples_that_run() -> None:
    assert {"README.md", "docs/tools.md", "docs/mcp.md"} <= set(DOCUMENTS_WITH_CODE)


def test_fenced_blocks_finds_python_blocks_with_their_lines() -> None:
    blocks = [(b.line, b.info, b.source) for b in fenced_blocks(SAMPLE, "sample.md")]
    assert blocks == [
        (3, ("python",), "x = 1\n"),
        (7, ("markdown",), '```python\nraise SystemExit("only shown")\n```\n'),
        (15, ("python",), "x += 1\n"),
        (19, ("python", "no-run"), "pseudo code\n"),
        (23, ("bash",), "exit 1\n"),
    ]


def test_an_unclosed_fence_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"broken\.md:2: the code fence"):
        fenced_blocks("text\n```python\nx = 1\n", "broken.md")


@pytest.mark.anyio
async def test_blocks_share_one_namespace_and_may_await(tmp_path: Path) -> None:
    document = tmp_path / "guide.md"
    document.write_text(
        SAMPLE + "```python\nimport anyio\nawait anyio.sleep(0)\n"
        "def scaled(factor: int) -> int:\n    return x * factor\n```\n"
    )
    namespace = await run_document(document, "guide.md")
    scaled: Any = namespace["scaled"]
    assert scaled(10) == 20
    # Annotations are evaluated: the docs do not inherit this module's __future__ imports.
    assert scaled.__annotations__ == {"factor": int, "return": int}


@pytest.mark.anyio
async def test_a_failing_block_names_the_file_and_line(tmp_path: Path) -> None:
    document = tmp_path / "guide.md"
    document.write_text(
        "# Guide\n\n```python\nvalue = 41\n\nassert value == 42, 'off by one'\n```\n"
    )
    with pytest.raises(pytest.fail.Exception) as failure:
        await run_document(document, "guide.md")
    message = str(failure.value)
    assert "the ```python block at guide.md:3 failed" in message
    assert f'File "{document}", line 6' in message
    assert "AssertionError: off by one" in message


@pytest.mark.anyio
async def test_a_syntax_error_names_the_document_line(tmp_path: Path) -> None:
    document = tmp_path / "guide.md"
    document.write_text("# Guide\n\n```python\nok = 1\nnot python(\n```\n")
    with pytest.raises(pytest.fail.Exception) as failure:
        await run_document(document, "guide.md")
    assert f'File "{document}", line 5' in str(failure.value)
    assert "SyntaxError" in str(failure.value)


def test_a_second_event_loop_runs_the_blocks_up_to_the_last_await() -> None:
    text = "".join(
        f"```python\n{source}\n```\n"
        for source in ["x = 1", "await anyio.sleep(0)", "y = [await z for z in w]", "x += 1"]
    )
    blocks = fenced_blocks(text, "guide.md")
    assert [awaits(block) for block in blocks] == [False, True, True, False]
    assert through_last_await(blocks) == blocks[:3]
    assert through_last_await(blocks[3:]) == []
