// The TypeScript MCP SDK's client (@modelcontextprotocol/sdk, installed under the folder given as
// the first argument): `listTools()` on each tool of the JSON list read from stdin, each served
// alone by fake_server.mjs. Prints accepted or refused (the whole list fails) per tool.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(resolve(process.argv[2]), 'node_modules/@modelcontextprotocol/sdk');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const { Client } = await import(pathToFileURL(join(root, 'dist/esm/client/index.js')).href);
const { StdioClientTransport } = await import(
  pathToFileURL(join(root, 'dist/esm/client/stdio.js')).href
);
const server = join(dirname(fileURLToPath(import.meta.url)), 'fake_server.mjs');
const work = mkdtempSync(join(tmpdir(), 'ts-sdk-'));

async function verdict({ _args, ...tool }, index) {
  const file = join(work, `${index}.json`);
  writeFileSync(file, JSON.stringify([tool]));
  const client = new Client({ name: 'schemas', version: '0' });
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, file] }));
    await client.listTools();
    return { name: tool.name, verdict: 'accepted' };
  } catch (error) {
    return { name: tool.name, verdict: 'refused', message: String(error?.message ?? error) };
  } finally {
    await client.close().catch(() => {});
  }
}

const tools = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const [index, tool] of tools.entries()) results.push(await verdict(tool, index));
process.stdout.write(JSON.stringify({ client: `@modelcontextprotocol/sdk@${version}`, results }));
process.exit(0);
