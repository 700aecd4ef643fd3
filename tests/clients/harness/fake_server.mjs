// A stdio MCP server with no dependencies that lists the tools in the JSON file named by its
// first argument exactly as written there, so a client judges exactly the schemas under test.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const tools = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  if (request.id === undefined) return; // a notification
  const reply = (result) => send({ jsonrpc: '2.0', id: request.id, result });
  if (request.method === 'initialize') {
    return reply({
      protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'schemas', version: '0' },
    });
  }
  if (request.method === 'tools/list') return reply({ tools });
  if (request.method === 'tools/call') return reply({ content: [{ type: 'text', text: 'ok' }] });
  if (request.method === 'ping') return reply({});
  send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
});
