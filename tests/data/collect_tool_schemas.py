"""Collect real MCP tool input schemas from published MCP servers.

This script documents how the corpus under ``tests/data/tool_schemas/`` was built. It is not
part of the test suite and is never imported by it. It needs network access to the npm
registry and PyPI, Node.js 20+ with npm, and a throwaway Python environment that has
``mcp>=2.3``, ``anyio`` and ``uv`` installed (do not use the project's own venv)::

    python3 -m venv /tmp/corpus/venv
    /tmp/corpus/venv/bin/pip install 'mcp>=2.3' anyio uv
    /tmp/corpus/venv/bin/python tests/data/collect_tool_schemas.py install --workdir /tmp/corpus
    /tmp/corpus/venv/bin/python tests/data/collect_tool_schemas.py collect --workdir /tmp/corpus \
        --out tests/data/tool_schemas

``install`` puts every npm package in its own folder under ``<workdir>/npm/`` and every PyPI
package in its own virtual environment under ``<workdir>/py/`` (so their dependencies cannot
clash). ``collect`` starts each server over stdio with dummy credentials, lists its tools with
the official MCP Python SDK client (following ``next_cursor`` pages), and writes one JSON file
per server. If the SDK client rejects a server's answer (for example a tool schema without a
top-level ``"type"``), the tools are listed again over plain JSON-RPC and kept verbatim. Servers
that fail to install or to start within the timeout are skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Registry = Literal["npm", "pypi"]

# Dummy credentials: enough for servers that refuse to start without them. No request made
# while listing tools needs them to be real.
_AWS_ENV = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "AKIADUMMYDUMMYDUMMY0",
    "AWS_SECRET_ACCESS_KEY": "dummy",
    "FASTMCP_LOG_LEVEL": "ERROR",
}


@dataclass(frozen=True)
class Server:
    """One published MCP server and how to start it over stdio."""

    package: str
    registry: Registry
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    bin: str | None = None  # executable name when it differs from the package's only bin
    pins: tuple[str, ...] = ()  # extra requirements that keep an old server importable

    @property
    def slug(self) -> str:
        return self.package.lstrip("@").replace("/", "__").replace(".", "-")


SERVERS: tuple[Server, ...] = (
    # --- npm -------------------------------------------------------------------------------
    Server("@modelcontextprotocol/server-everything", "npm", ("stdio",)),
    Server("@modelcontextprotocol/server-filesystem", "npm", ("{tmp}",)),
    Server("@modelcontextprotocol/server-memory", "npm", env={"MEMORY_FILE_PATH": "{tmp}/m.json"}),
    Server("@modelcontextprotocol/server-sequential-thinking", "npm"),
    Server(
        "@modelcontextprotocol/server-github",
        "npm",
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"},
    ),
    Server(
        "@modelcontextprotocol/server-gitlab",
        "npm",
        env={"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy", "GITLAB_API_URL": "http://127.0.0.1:9"},
    ),
    Server(
        "@modelcontextprotocol/server-slack",
        "npm",
        env={"SLACK_BOT_TOKEN": "xoxb-dummy", "SLACK_TEAM_ID": "T00000000"},
    ),
    Server("@modelcontextprotocol/server-brave-search", "npm", env={"BRAVE_API_KEY": "dummy"}),
    Server("@modelcontextprotocol/server-google-maps", "npm", env={"GOOGLE_MAPS_API_KEY": "dummy"}),
    Server("@modelcontextprotocol/server-puppeteer", "npm"),
    Server(
        "@modelcontextprotocol/server-postgres",
        "npm",
        ("postgresql://dummy:dummy@127.0.0.1:9/dummy",),
    ),
    Server("@modelcontextprotocol/server-redis", "npm", ("redis://127.0.0.1:9",)),
    Server("@modelcontextprotocol/server-everart", "npm", env={"EVERART_API_KEY": "dummy"}),
    Server("@modelcontextprotocol/server-aws-kb-retrieval", "npm", env=_AWS_ENV),
    Server("@playwright/mcp", "npm", ("--headless",)),
    Server(
        "@notionhq/notion-mcp-server",
        "npm",
        env={"NOTION_TOKEN": "ntn_dummy"},
    ),
    Server("firecrawl-mcp", "npm", env={"FIRECRAWL_API_KEY": "fc-dummy"}),
    Server("@upstash/context7-mcp", "npm"),
    Server("chrome-devtools-mcp", "npm"),
    Server("tavily-mcp", "npm", env={"TAVILY_API_KEY": "tvly-dummy"}),
    Server(
        "@supabase/mcp-server-supabase",
        "npm",
        env={"SUPABASE_ACCESS_TOKEN": "sbp_dummy"},
    ),
    Server("@sentry/mcp-server", "npm", ("--access-token=dummy",)),
    Server("mcp-server-kubernetes", "npm"),
    Server("@heroku/mcp-server", "npm", env={"HEROKU_API_KEY": "dummy"}),
    Server("exa-mcp-server", "npm", env={"EXA_API_KEY": "dummy"}),
    Server(
        "@browserbasehq/mcp-server-browserbase",
        "npm",
        env={
            "BROWSERBASE_API_KEY": "dummy",
            "BROWSERBASE_PROJECT_ID": "dummy",
            "GEMINI_API_KEY": "dummy",
        },
    ),
    Server("@azure-devops/mcp", "npm", ("dummy-org",)),
    Server(
        "@benborla29/mcp-server-mysql",
        "npm",
        env={"MYSQL_HOST": "127.0.0.1", "MYSQL_PORT": "9", "MYSQL_USER": "d", "MYSQL_PASS": "d"},
    ),
    Server(
        "@circleci/mcp-server-circleci",
        "npm",
        env={"CIRCLECI_TOKEN": "dummy"},
    ),
    Server("@cyanheads/git-mcp-server", "npm"),
    Server("@executeautomation/playwright-mcp-server", "npm"),
    Server("@hubspot/mcp-server", "npm", env={"PRIVATE_APP_ACCESS_TOKEN": "dummy"}),
    Server("@mapbox/mcp-server", "npm", env={"MAPBOX_ACCESS_TOKEN": "pk.dummy"}),
    Server("@stripe/mcp", "npm", ("--tools=all", "--api-key=sk_test_dummy")),
    Server("@wonderwhy-er/desktop-commander", "npm"),
    Server("airtable-mcp-server", "npm", env={"AIRTABLE_API_KEY": "dummy"}),
    Server("figma-developer-mcp", "npm", ("--stdio", "--figma-api-key=dummy")),
    Server("mongodb-mcp-server", "npm"),
    Server("@apify/actors-mcp-server", "npm", env={"APIFY_TOKEN": "dummy"}),
    Server("@pinecone-database/mcp", "npm", env={"PINECONE_API_KEY": "dummy"}),
    Server(
        "@elastic/mcp-server-elasticsearch",
        "npm",
        env={"ES_URL": "http://127.0.0.1:9", "ES_API_KEY": "dummy"},
    ),
    Server(
        "@dynatrace-oss/dynatrace-mcp-server",
        "npm",
        env={"DT_ENVIRONMENT": "https://dummy.apps.dynatrace.com"},
    ),
    Server("@neondatabase/mcp-server-neon", "npm", ("start", "napi_dummy")),
    Server("@line/line-bot-mcp-server", "npm", env={"CHANNEL_ACCESS_TOKEN": "dummy"}),
    Server("mcp-server-code-runner", "npm"),
    Server("@modelcontextprotocol/server-gdrive", "npm"),
    # --- PyPI ------------------------------------------------------------------------------
    Server("mcp-server-fetch", "pypi"),
    Server("mcp-server-git", "pypi"),
    Server("mcp-server-time", "pypi", ("--local-timezone", "UTC")),
    Server("mcp-server-sqlite", "pypi", ("--db-path", "{tmp}/db.sqlite"), pins=("mcp<2",)),
    Server("awslabs.aws-documentation-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.aws-pricing-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.cloudwatch-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.dynamodb-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.eks-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.iam-mcp-server", "pypi", env=_AWS_ENV),
    Server("awslabs.ecs-mcp-server", "pypi", env=_AWS_ENV, bin="ecs-mcp-server"),
    Server("arxiv-mcp-server", "pypi", ("--storage-path", "{tmp}/arxiv")),
    Server("duckduckgo-mcp-server", "pypi"),
    Server(
        "mcp-atlassian",
        "pypi",
        env={
            "JIRA_URL": "https://dummy.atlassian.net",
            "JIRA_USERNAME": "dummy@example.com",
            "JIRA_API_TOKEN": "dummy",
            "CONFLUENCE_URL": "https://dummy.atlassian.net/wiki",
            "CONFLUENCE_USERNAME": "dummy@example.com",
            "CONFLUENCE_API_TOKEN": "dummy",
        },
    ),
    Server(
        "mcp-clickhouse",
        "pypi",
        env={
            "CLICKHOUSE_HOST": "127.0.0.1",
            "CLICKHOUSE_PORT": "9",
            "CLICKHOUSE_USER": "dummy",
            "CLICKHOUSE_PASSWORD": "dummy",
            "CLICKHOUSE_SECURE": "false",
        },
    ),
    Server(
        "mcp-neo4j-memory",
        "pypi",
        env={"NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_USERNAME": "d", "NEO4J_PASSWORD": "d"},
    ),
    Server(
        "mcp-neo4j-cypher",
        "pypi",
        env={"NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_USERNAME": "d", "NEO4J_PASSWORD": "d"},
    ),
    Server("excel-mcp-server", "pypi", ("stdio",), env={"EXCEL_FILES_PATH": "{tmp}"}),
    Server("office-word-mcp-server", "pypi", bin="word_mcp_server"),
    Server(
        "elasticsearch-mcp-server",
        "pypi",
        env={
            "ELASTICSEARCH_HOSTS": "http://127.0.0.1:9",
            "ELASTICSEARCH_USERNAME": "d",
            "ELASTICSEARCH_PASSWORD": "d",
        },
    ),
    Server("mcp-obsidian", "pypi", env={"OBSIDIAN_API_KEY": "dummy"}),
    Server("markitdown-mcp", "pypi"),
    Server("chroma-mcp", "pypi", ("--client-type", "ephemeral"), pins=("pydantic<2.12",)),
    Server("mcp-server-motherduck", "pypi", ("--db-path", ":memory:", "--read-write")),
    Server("mcp-pandoc", "pypi"),
    Server("mcp-server-docker", "pypi"),  # needs Python >= 3.12
)


# --- install -------------------------------------------------------------------------------


def install(workdir: Path, servers: tuple[Server, ...]) -> None:
    """Install every server into its own folder (npm) or virtual environment (PyPI)."""
    uv = Path(sys.executable).with_name("uv")
    env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    for server in servers:
        if server.registry == "npm":
            target = workdir / "npm" / server.slug
            target.mkdir(parents=True, exist_ok=True)
            subprocess.run(["npm", "init", "-y"], cwd=target, capture_output=True, check=True)
            cmd = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", server.package]
            proc = subprocess.run(cmd, cwd=target, env=env, capture_output=True, text=True)
        else:
            target = workdir / "py" / server.slug
            subprocess.run([str(uv), "venv", "-q", str(target)], check=True)
            cmd = [str(uv), "pip", "install", "-q", server.package, *server.pins]
            proc = subprocess.run(
                cmd, env=dict(env, VIRTUAL_ENV=str(target)), capture_output=True, text=True
            )
        status = "ok" if proc.returncode == 0 else f"FAILED: {proc.stderr.strip()[-300:]}"
        print(f"{server.package}: {status}", file=sys.stderr)


# --- collect -------------------------------------------------------------------------------


def _npm_package_dir(workdir: Path, server: Server) -> Path:
    return workdir / "npm" / server.slug / "node_modules" / server.package


def _resolve(workdir: Path, server: Server) -> tuple[list[str], str]:
    """Return the command line that starts the server and the installed package version."""
    if server.registry == "npm":
        pkg_dir = _npm_package_dir(workdir, server)
        meta = json.loads((pkg_dir / "package.json").read_text())
        bins = meta.get("bin")
        if isinstance(bins, str):
            script = bins
        elif isinstance(bins, dict) and bins:
            name = server.bin or (next(iter(bins)) if len(bins) == 1 else None)
            if name is None:
                # Several bins: prefer the one named after the package.
                short = server.package.rsplit("/", 1)[-1]
                name = short if short in bins else next(iter(bins))
            script = bins[name]
        else:
            raise RuntimeError(f"{server.package} declares no bin")
        node = shutil.which("node") or "node"
        return [node, str(pkg_dir / script)], str(meta["version"])
    venv = workdir / "py" / server.slug
    python = venv / "bin" / "python"
    version = subprocess.run(
        [
            str(python),
            "-c",
            "import sys, importlib.metadata as m; print(m.version(sys.argv[1]))",
            server.package,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    exe = venv / "bin" / (server.bin or server.package)
    return [str(exe)], version


def _fill(value: str, tmp: str) -> str:
    return value.replace("{tmp}", tmp)


async def _list_tools(command: list[str], env: dict[str, str], seconds: float) -> list[Any]:
    import anyio
    import mcp

    params = mcp.StdioServerParameters(command=command[0], args=command[1:], env=env)
    tools: list[Any] = []
    with anyio.fail_after(seconds):
        async with mcp.Client(params) as client:
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
    return tools


async def _list_tools_raw(
    command: list[str], env: dict[str, str], seconds: float
) -> list[dict[str, Any]]:
    """Fallback: speak plain JSON-RPC over stdio and keep ``tools/list`` results verbatim.

    Used only when the SDK client rejects a server's answer (for example a tool whose
    ``inputSchema`` has no top-level ``"type"``), so that such real-world schemas are kept.
    """
    import anyio
    from mcp.client.stdio import get_default_environment

    full_env = {**get_default_environment(), **env}
    tools: list[dict[str, Any]] = []
    with anyio.fail_after(seconds):
        async with await anyio.open_process(command, env=full_env, stderr=sys.stderr) as proc:
            assert proc.stdin is not None and proc.stdout is not None
            buffer = b""

            async def send(message: dict[str, Any]) -> None:
                assert proc.stdin is not None
                await proc.stdin.send(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

            async def response(request_id: int) -> dict[str, Any]:
                nonlocal buffer
                assert proc.stdout is not None
                while True:
                    while b"\n" not in buffer:
                        buffer += await proc.stdout.receive()
                    line, buffer = buffer.split(b"\n", 1)
                    if not line.strip():
                        continue
                    message = json.loads(line)
                    if message.get("id") == request_id and "method" not in message:
                        if "error" in message:
                            raise RuntimeError(f"server error: {message['error']}")
                        result: dict[str, Any] = message["result"]
                        return result
                    if "method" in message and "id" in message:  # e.g. ping: answer it
                        await send({"id": message["id"], "result": {}})

            init = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "littleghost-corpus", "version": "0"},
            }
            await send({"id": 1, "method": "initialize", "params": init})
            await response(1)
            await send({"method": "notifications/initialized"})
            cursor: str | None = None
            request_id = 2
            while True:
                params = {"cursor": cursor} if cursor is not None else {}
                await send({"id": request_id, "method": "tools/list", "params": params})
                page = await response(request_id)
                tools.extend(page.get("tools", []))
                cursor = page.get("nextCursor")
                request_id += 1
                if not cursor:
                    break
            proc.terminate()
    return tools


def _tool_record(tool: Any) -> dict[str, Any]:
    if isinstance(tool, dict):
        dumped: dict[str, Any] = tool
    else:
        dumped = tool.model_dump(by_alias=True, exclude_none=True)
    record: dict[str, Any] = {"name": dumped["name"], "inputSchema": dumped["inputSchema"]}
    if "outputSchema" in dumped:
        record["outputSchema"] = dumped["outputSchema"]
    return record


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


async def _collect_one(workdir: Path, out: Path, server: Server, seconds: float) -> str:
    try:
        command, version = _resolve(workdir, server)
    except Exception as exc:  # any install problem just skips the server
        return f"{server.package}: skipped (not installed: {exc!r})"
    client = "sdk"
    with tempfile.TemporaryDirectory(prefix="mcp-corpus-") as tmp:
        command = [_fill(part, tmp) for part in command] + [_fill(a, tmp) for a in server.args]
        env = {key: _fill(value, tmp) for key, value in server.env.items()}
        env.setdefault("HOME", tmp)
        env.setdefault("PYTHONHASHSEED", "0")  # some servers build defaults from sets
        tools: list[Any]
        try:
            tools = await _list_tools(command, env, seconds)
        except Exception as exc:  # servers fail in many ways
            if isinstance(exc, TimeoutError):
                return f"{server.package}: skipped ({_describe(exc)})"[:400]
            sdk_error = _describe(exc)
            client = "raw"
            try:
                tools = await _list_tools_raw(command, env, seconds)
            except Exception as raw_exc:
                return f"{server.package}: skipped (sdk {sdk_error}; raw {_describe(raw_exc)})"[
                    :600
                ]
    if not tools:
        return f"{server.package}: skipped (no tools)"
    document = {
        "server": server.package,
        "version": version,
        "registry": server.registry,
        "tools": [_tool_record(tool) for tool in tools],
    }
    path = out / f"{server.slug}.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return f"{server.package} {version}: {len(tools)} tools via {client} -> {path.name}"


async def collect(
    workdir: Path, out: Path, servers: tuple[Server, ...], seconds: float, jobs: int
) -> None:
    """List the tools of every installed server and write one JSON file per server."""
    import anyio

    limiter = anyio.CapacityLimiter(jobs)

    async def run(server: Server) -> None:
        async with limiter:
            print(await _collect_one(workdir, out, server, seconds), file=sys.stderr)

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(run, server)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("action", choices=["install", "collect"])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/corpus"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "tool_schemas")
    parser.add_argument("--only", nargs="*", help="package names to restrict to")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per server")
    parser.add_argument("--jobs", type=int, default=4, help="servers started at once")
    args = parser.parse_args(argv)
    servers = tuple(s for s in SERVERS if not args.only or s.package in args.only)
    if args.action == "install":
        install(args.workdir, servers)
    else:
        import anyio

        args.out.mkdir(parents=True, exist_ok=True)
        anyio.run(collect, args.workdir, args.out, servers, args.timeout, args.jobs)


if __name__ == "__main__":
    main()
