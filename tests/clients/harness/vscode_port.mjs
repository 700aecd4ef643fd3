// A PORT, not the client's code: VS Code Copilot Chat's checks of an MCP tool's input schema,
// which ship only inside its extension (not on npm). Source: microsoft/vscode-copilot-chat,
// src/extension/tools/common/toolSchemaNormalizer.ts (`normalizeToolSchema`): the schema must
// be valid draft-07 (Ajv), and a node whose `type` is the string 'array' must have `items`
// ("tool parameters array type must have items"). Ajv is loaded from the folder given as the
// first argument. Prints accepted or refused per tool of the JSON list read from stdin.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const require = createRequire(join(resolve(process.argv[2]), 'node_modules/'));
const Ajv = require('ajv').default;
const ajv = new Ajv({ coerceTypes: true, strictTypes: true, allowUnionTypes: true });
ajv.addFormat('uri', (value) => URL.canParse(value));
ajv.addFormat('regex', (value) => typeof value === 'string');
const draft7 = ajv.compile(require('ajv/dist/refs/json-schema-draft-07.json'));

function* nodes(schema) {
  if (!schema || typeof schema !== 'object') return;
  yield schema;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...Object.values(schema.patternProperties ?? {}),
    ...Object.values(schema.dependencies ?? {}),
    ...('items' in schema ? [].concat(schema.items) : []),
    schema.additionalProperties,
    ...(schema.anyOf ?? []),
    ...(schema.allOf ?? []),
    ...(schema.oneOf ?? []),
    schema.not,
    schema.if,
    schema.then,
    schema.else,
    schema.contains,
  ];
  for (const child of children) yield* nodes(child);
}

function check(schema) {
  if (!schema || schema.type !== 'object') schema = { type: 'object', properties: {} };
  if (!draft7(schema)) {
    return `tool parameters do not match JSON schema: ${ajv.errorsText(draft7.errors)}`;
  }
  for (const node of nodes(schema)) {
    if (node.type === 'array' && !node.items) return 'tool parameters array type must have items';
  }
  return null;
}

const tools = JSON.parse(readFileSync(0, 'utf8'));
const results = tools.map((tool) => {
  const error = check(structuredClone(tool.inputSchema));
  return error === null
    ? { name: tool.name, verdict: 'accepted' }
    : { name: tool.name, verdict: 'refused', message: `Failed to validate tool ${tool.name}: ${error}` };
});
process.stdout.write(JSON.stringify({ client: 'vscode-copilot-chat toolSchemaNormalizer (port)', results }));
