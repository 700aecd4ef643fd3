// Gemini CLI's own MCP discovery (@google/gemini-cli-core, installed under the folder given as
// the first argument) on each tool of the JSON list read from stdin, each served alone by
// fake_server.mjs. Prints one verdict per tool: accepted (the CLI would declare it to the
// model), dropped (the CLI skips this tool) or refused (discovery fails: the server's every
// tool is lost), with the CLI's message. A tool with `_args` also has them checked by the CLI's
// own validation of the model's arguments (`build`): `argsError` says why it refused them.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(resolve(process.argv[2]), 'node_modules/@google/gemini-cli-core');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const client = await import(pathToFileURL(join(root, 'dist/src/tools/mcp-client.js')).href);
const server = join(dirname(fileURLToPath(import.meta.url)), 'fake_server.mjs');
const work = mkdtempSync(join(tmpdir(), 'gemini-'));

// The CLI reports skipped tools and failed discoveries on the console.
const messages = [];
for (const level of ['log', 'warn', 'error', 'info', 'debug']) {
  console[level] = (...parts) => messages.push(parts.map(String).join(' '));
}
const cliConfig = {
  isTrustedFolder: () => true,
  sanitizationConfig: {},
  emitMcpDiagnostic: (severity, message) => messages.push(`[${severity}] ${message}`),
  getDebugMode: () => false,
};
const workspace = { getDirectories: () => [], onDirectoriesChanged: () => () => {} };
// 0.7.0 takes (name, config, debug, workspace); later versions the CLI version first.
const connect = (config) =>
  client.connectToMcpServer.length === 4
    ? client.connectToMcpServer('srv', config, false, workspace)
    : client.connectToMcpServer(version, 'srv', config, false, workspace, cliConfig);

async function verdict({ _args: args, ...tool }, index) {
  const file = join(work, `${index}.json`);
  writeFileSync(file, JSON.stringify([tool]));
  const config = { command: process.execPath, args: [server, file], timeout: 10000 };
  messages.length = 0;
  let connection;
  try {
    connection = await connect(config);
    const found = await client.discoverTools('srv', config, connection, cliConfig, undefined, {
      timeout: 10000,
    });
    if (found.length === 1) {
      if (args === undefined) return { name: tool.name, verdict: 'accepted' };
      try {
        found[0].build(args);
        return { name: tool.name, verdict: 'accepted', argsError: null };
      } catch (error) {
        return { name: tool.name, verdict: 'accepted', argsError: String(error?.message ?? error) };
      }
    }
    const message = messages.join('\n');
    // 0.7.0 catches a failed tools/list and logs it: the server's every tool is lost.
    const refused = /Error discovering tools from/.test(message);
    return { name: tool.name, verdict: refused ? 'refused' : 'dropped', message };
  } catch (error) {
    return { name: tool.name, verdict: 'refused', message: String(error?.message ?? error) };
  } finally {
    await connection?.close().catch(() => {});
  }
}

const tools = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const [index, tool] of tools.entries()) results.push(await verdict(tool, index));
process.stdout.write(JSON.stringify({ client: `@google/gemini-cli-core@${version}`, results }));
process.exit(0);
