"""Servers with resources, resource templates and prompts, for ``check``'s reads.

``sdk_good`` is a plain SDK ``MCPServer`` whose resources and prompts all
work; ``sdk_broken`` has one resource and one prompt that raise; ``sdk_ids``
has templates that refuse unknown ids, each its own way; ``unannotated`` has tools
that no default run calls. Fake servers
with scripted faults are made per test by ``shelf()``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from littleghost_testing.fake_server import FakeMCPServer

sdk_good = MCPServer("shelf-good", log_level="WARNING")


@sdk_good.resource("docs://readme", mime_type="text/plain")
def readme() -> str:
    return "Welcome to the shelf."


@sdk_good.resource("docs://logo", mime_type="image/png")
def logo() -> bytes:
    return b"\x89PNG\r\n"


@sdk_good.resource("docs://books/{book_id}")
def book(book_id: int) -> dict[str, object]:
    return {"id": book_id, "title": f"Book {book_id}"}


@sdk_good.prompt()
def summarize(topic: str, style: str = "short") -> str:
    return f"Summarize {topic} in a {style} way."


@sdk_good.prompt()
def hello() -> str:
    return "Hello."


sdk_broken = MCPServer("shelf-broken", log_level="WARNING")


@sdk_broken.resource("docs://readme")
def working_readme() -> str:
    return "Welcome."


@sdk_broken.resource("docs://index")
def index() -> str:
    raise RuntimeError("the index is gone")


@sdk_broken.prompt()
def review(chapter: str) -> str:
    return ["not", "a", "prompt"][len(chapter) + 5]  # IndexError, for any value


@sdk_broken.prompt()
def greet(name: str) -> str:
    return f"Hello {name}."


sdk_ids = MCPServer("shelf-ids", log_level="WARNING")
"""Two templates that refuse an id they do not know: one raising ``ValueError`` (a crash, to
the SDK: -32603), one raising ``ResourceNotFoundError`` (a refusal: -32602)."""


@sdk_ids.resource("docs://notes/{note_id}")
def note(note_id: str) -> str:
    if note_id != "n1":
        raise ValueError(f"no note {note_id}")
    return "the first note"


@sdk_ids.resource("docs://pages/{page_id}")
def page(page_id: str) -> str:
    if page_id != "p1":
        raise ResourceNotFoundError(f"no page {page_id}")
    return "the first page"


unannotated = MCPServer("shelf-unannotated", log_level="WARNING")
"""Two tools without annotations (so ``check`` calls neither by default), a resource, a prompt."""


@unannotated.tool()
def shelve(title: str) -> str:
    return f"{title} shelved."


@unannotated.tool()
def count_books() -> int:
    return 3


@unannotated.resource("docs://readme", mime_type="text/plain")
def unannotated_readme() -> str:
    return "Welcome."


@unannotated.prompt()
def recommend(topic: str) -> str:
    return f"Recommend a book about {topic}."


def shelf() -> FakeMCPServer:
    """Two resources, a template with completions and two prompts, all answering well."""
    fake = FakeMCPServer("shelf")

    @fake.resource("file:///readme.txt", mime_type="text/plain")
    def readme() -> str:
        return "hello"

    @fake.resource("file:///broken.txt")
    def broken() -> str:
        return "fine until a fault says otherwise"

    @fake.resource("file:///logs/{day}")
    def logs(day: str) -> str:
        return f"log of {day}"

    @fake.prompt()
    def ask(question: str, tone: str = "plain") -> str:
        return f"{question} ({tone})"

    @fake.prompt()
    def odd() -> str:
        return "fine until a fault says otherwise"

    fake.completion("day", ["2026-01-01", "2026-01-02"], template="file:///logs/{day}")
    return fake


shelf_server = shelf()
"""A module-level ``shelf()``, for ``module:attribute`` targets."""
