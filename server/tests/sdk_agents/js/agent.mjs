// A test agent on the official A2A JavaScript SDK (@a2a-js/sdk 1.3.0 with express), driven by the
// console's integration tests (server/tests/it/sdk_agents.rs).
//
// Behaviour, chosen by the user's text:
// - `ask`: the task goes INPUT_REQUIRED asking "What is your name?". The reply (same task) takes
//   the SDK's own path: the request's task is published first (the SDK requires a task or
//   message as every execution's first event), then, after ~300 ms, WORKING, the artifact
//   `greeting` = `Hello, <name>!`, COMPLETED.
// - `chunks N`: one artifact `story` in N append chunks `part-1 ` … `part-N ` ~150 ms apart
//   (lastChunk on the last), then COMPLETED.
// - anything else: the artifact `echo` = the text, then COMPLETED.
//
// Usage: node agent.mjs --port P --transport jsonrpc|rest --streaming true|false --protocol 1.0|0.3
//        [--public-origin http://127.0.0.1:Q]
// The card (/.well-known/agent-card.json) advertises only the chosen interface.

import { parseArgs } from 'node:util';
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    transport: { type: 'string', default: 'jsonrpc' },
    streaming: { type: 'string', default: 'true' },
    protocol: { type: 'string', default: '1.0' },
    // The origin the card advertises, when a proxy stands between the console and the agent.
    'public-origin': { type: 'string' },
  },
});
if (!args.port || !['jsonrpc', 'rest'].includes(args.transport) || !['1.0', '0.3'].includes(args.protocol)) {
  console.error('usage: agent.mjs --port P --transport jsonrpc|rest --streaming true|false --protocol 1.0|0.3');
  process.exit(2);
}

const log = (...line) => console.error('[js-1.3]', ...line);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString();
const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function status(taskId, contextId, state, message) {
  return AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: now(), message }, metadata: undefined });
}

function artifact(taskId, contextId, artifactId, name, text, append, lastChunk) {
  return AgentEvent.artifactUpdate({
    taskId,
    contextId,
    artifact: { artifactId, name, description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
    append,
    lastChunk,
    metadata: undefined,
  });
}

function agentMessage(taskId, contextId, text) {
  return {
    role: Role.ROLE_AGENT,
    messageId: crypto.randomUUID(),
    parts: [textPart(text)],
    taskId,
    contextId,
    extensions: [],
    metadata: {},
    referenceTaskIds: [],
  };
}

const executor = {
  async execute(requestContext, bus) {
    const { taskId, contextId, task } = requestContext;
    const message = requestContext.userMessage;
    const text = message.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join('')
      .trim();
    log(`task ${taskId} state ${task?.status?.state} text ${JSON.stringify(text)}`);
    if (task) {
      bus.publish(AgentEvent.task(task));
    } else {
      const submitted = { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined };
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: submitted, artifacts: [], history: [message], metadata: undefined }));
    }
    if (task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      // The reply: answered late, so a non-blocking send sees the paused snapshot.
      await sleep(300);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
      bus.publish(artifact(taskId, contextId, crypto.randomUUID(), 'greeting', `Hello, ${text}!`, false, true));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
      log(`task ${taskId} completed (greeting)`);
    } else if (text === 'ask') {
      const question = agentMessage(taskId, contextId, 'What is your name?');
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, question));
    } else if (text.startsWith('chunks ')) {
      const count = Number(text.split(/\s+/)[1]);
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
      for (let n = 1; n <= count; n++) {
        bus.publish(artifact(taskId, contextId, 'story', 'story', `part-${n} `, n > 1, n === count));
        log(`chunk ${n} of ${count}`);
        await sleep(150);
      }
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
      log(`task ${taskId} completed (${count} chunks)`);
    } else {
      bus.publish(artifact(taskId, contextId, crypto.randomUUID(), 'echo', text, false, true));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now() } }));
    bus.finished();
  },
};

const origin = args['public-origin'] ?? `http://127.0.0.1:${args.port}`;
const binding = args.transport === 'jsonrpc' ? 'JSONRPC' : 'HTTP+JSON';
const card = {
  name: `@a2a-js/sdk 1.3.0 test agent (${binding} ${args.protocol})`,
  description: 'Multi-turn and chunked artifacts for the console tests.',
  supportedInterfaces: [
    { url: `${origin}/${args.transport}`, protocolBinding: binding, tenant: '', protocolVersion: args.protocol },
  ],
  version: '1.0.0',
  capabilities: { streaming: args.streaming === 'true', pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'test', name: 'test', description: 'ask / chunks N / echo', tags: ['test'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  documentationUrl: '',
  signatures: [],
};

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const legacyCompat = { enabled: args.protocol === '0.3' };
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
const handler = args.transport === 'jsonrpc' ? jsonRpcHandler : restHandler;
app.use(`/${args.transport}`, handler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));

const server = app.listen(Number(args.port), '127.0.0.1', () => log(`listening on ${origin}`));
server.on('error', (error) => {
  log('cannot listen:', error.message);
  process.exit(1);
});
// A test agent ends at once, open streams and all.
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
