// Planted bugs in a TypeScript SDK McpServer (npm @modelcontextprotocol/sdk with zod),
// written as its users write one. `npm install` in this folder, then
// `node tests/corpus/ts/server.mjs` serves it over stdio. Each tool but the controls
// (the last section) has exactly one bug; see ../manifest.json.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "corpus-typescript", version: "1.0.0" });
const readOnly = { readOnlyHint: true };
const text = (value) => ({ content: [{ type: "text", text: value }] });

// -- crashes on valid input --------------------------------------------------------

server.registerTool(
  "initial",
  { description: "The initial of a name, upper-cased.", inputSchema: { name: z.string() }, annotations: readOnly },
  // bug: RangeError on "", which the schema allows (codePointAt(0) is undefined)
  async ({ name }) => text(String.fromCodePoint(name.codePointAt(0)).toUpperCase()),
);

server.registerTool(
  "highest",
  {
    description: "The highest of some scores.",
    inputSchema: { scores: z.array(z.number().int()).max(50) },
    annotations: readOnly,
  },
  // bug: TypeError on [] (reduce without an initial value)
  async ({ scores }) => text(String(scores.reduce((a, b) => Math.max(a, b)))),
);

server.registerTool(
  "salutation",
  {
    description: "A letter's salutation, with an optional title.",
    inputSchema: { name: z.string().min(1).max(60), title: z.string().max(20).optional() },
    annotations: readOnly,
  },
  // bug: TypeError without a title
  async ({ name, title }) => text(`Dear ${title.toLowerCase()} ${name}`),
);

// -- a validation gap and an empty "ok" ----------------------------------------------

server.registerTool(
  "repeat_word",
  {
    description: "Repeat a word a few times.",
    // bug: z.coerce takes "5" (and true) for the integer
    inputSchema: { word: z.string().max(20), times: z.coerce.number().int().min(1).max(10) },
    annotations: readOnly,
  },
  async ({ word, times }) => text(Array(times).fill(word).join(" ")),
);

server.registerTool(
  "list_columns",
  {
    description: "The columns of a table.",
    inputSchema: { table: z.enum(["orders", "customers"]) },
    annotations: readOnly,
  },
  // bug: a "success" that failed
  async ({ table }) => text(JSON.stringify({ success: false, error: `table ${table} is locked` })),
);

// -- hollow answers and unstated rules (issue 29) -----------------------------------

server.registerTool(
  "top_sellers",
  {
    description: "The best-selling products, up to a limit.",
    inputSchema: { limit: z.number().int() },
    annotations: readOnly,
  },
  async ({ limit }) => {
    // bug: a rule the schema does not state (no minimum: 1)
    if (limit < 1) throw new Error("limit must be at least 1");
    return text(Array.from({ length: Math.min(limit, 5) }, (_, rank) => `product ${rank + 1}`).join(", "));
  },
);

server.registerTool(
  "open_file",
  { description: "Open a saved file.", inputSchema: { path: z.string().max(40) }, annotations: readOnly },
  // bug: the same refusal, as a success, to every call
  async ({ path }) => text(`File ${path} was not found in the workspace`),
);

// -- controls: correct tools, no finding expected ---------------------------------

server.registerTool(
  "word_count",
  { description: "Count the words of a text.", inputSchema: { text: z.string().max(1000) }, annotations: readOnly },
  async ({ text: value }) => text(String(value.split(/\s+/).filter(Boolean).length)),
);

server.registerTool(
  "clamp",
  {
    description: "Clamp a value into a range.",
    inputSchema: {
      value: z.number().int().min(-1000).max(1000),
      low: z.number().int().min(-1000).max(0).optional(),
      high: z.number().int().min(0).max(1000).optional(),
    },
    annotations: readOnly,
  },
  async ({ value, low = 0, high = 100 }) => text(String(Math.min(Math.max(value, low), high))),
);

server.registerTool(
  "shipping_zone",
  {
    description: "The shipping zone of a country.",
    inputSchema: { country: z.enum(["DE", "FR", "US"]), express: z.boolean().optional() },
    annotations: readOnly,
  },
  async ({ country, express }) => {
    const zone = country === "DE" ? "domestic" : "international";
    return text(express ? `${zone} (express)` : zone);
  },
);

// -- reads: a resource and a prompt, each with a control ---------------------------
// The SDK answers a read or a get that throws with a JSON-RPC error holding the error's
// message, V8's own text for a crash: `unhandled_exception`.

const downtimes = [];

server.registerResource(
  "uptime",
  "corpus://typescript/uptime",
  { mimeType: "text/plain" },
  // bug: TypeError, the longest downtime of none (reduce without an initial value)
  async (uri) => ({
    contents: [{ uri: uri.href, text: `longest: ${downtimes.reduce((a, b) => Math.max(a, b))} min` }],
  }),
);

server.registerPrompt(
  "greeting",
  {
    description: "Greet a customer, with an optional title.",
    argsSchema: { name: z.string(), title: z.string().optional() },
  },
  // bug: TypeError without the optional title
  ({ name, title }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Greet ${title.toUpperCase()} ${name}.` } }],
  }),
);

server.registerResource(
  "readme",
  "corpus://typescript/readme",
  { mimeType: "text/plain" },
  async (uri) => ({ contents: [{ uri: uri.href, text: "The corpus server of the TypeScript SDK." }] }),
);

server.registerPrompt(
  "code_review",
  {
    description: "Review some code, in a language (javascript by default).",
    argsSchema: { code: z.string(), language: z.string().optional() },
  },
  ({ code, language = "javascript" }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Review this ${language} code:\n${code}` } }],
  }),
);

await server.connect(new StdioServerTransport());
