// Planted bugs written with the TypeScript SDK's McpServer, over stdio.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "planted-ts", version: "1.0.0" });
const readOnly = { readOnlyHint: true };

// An optional field read without a check: absent, it throws a TypeError.
server.registerTool(
  "shout",
  { inputSchema: { text: z.string(), suffix: z.string().optional() }, annotations: readOnly },
  async ({ text, suffix }) => ({ content: [{ type: "text", text: text + suffix.toUpperCase() }] }),
);

// A deliberate refusal for every order: a fine answer.
server.registerTool(
  "lookup",
  { inputSchema: { order_id: z.string() }, annotations: readOnly },
  async ({ order_id }) => ({ content: [{ type: "text", text: `order ${order_id} not found` }], isError: true }),
);

// The control.
server.registerTool(
  "echo",
  { inputSchema: { text: z.string() }, annotations: readOnly },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);

await server.connect(new StdioServerTransport());
