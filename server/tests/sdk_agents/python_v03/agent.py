"""A test agent on the official Python A2A SDK 0.3 line (a2a-sdk 0.3.26, protocol 0.3 only),
driven by the console's integration tests (server/tests/it/sdk_agents.rs).

Behaviour, chosen by the user's text (the same as python_v1/agent.py):
- `ask`: the task goes input-required asking "What is your name?"; the reply (same task) is
  answered after ~300 ms with the artifact `greeting` = `Hello, <name>!` (added first), then the
  task completes.
- `chunks N`: one artifact `story` in N append chunks `part-1 ` … `part-N ` ~150 ms apart
  (lastChunk on the last), then completed.
- anything else: the artifact `echo` = the text, then completed.

Usage: agent.py --port P --transport jsonrpc|rest --streaming true|false [--public-origin URL]
The card (/.well-known/agent-card.json) advertises only the chosen transport, protocol 0.3.0.
"""

import argparse
import asyncio
import logging
import signal
import sys

import uvicorn

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    Part,
    TaskState,
    TextPart,
    TransportProtocol,
)
from a2a.utils import new_agent_text_message, new_task

log = logging.getLogger('sdk-agent')


def text_part(text: str) -> Part:
    return Part(root=TextPart(text=text))


class TestExecutor(AgentExecutor):
    """The agent's logic, publishing through the SDK's TaskUpdater."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        task = context.current_task
        if task is None:
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        log.info('task %s state %s text %r', task.id, task.status.state.value, text)
        if task.status.state == TaskState.input_required:
            # The reply: answered late, so a non-blocking send sees the paused snapshot.
            await asyncio.sleep(0.3)
            await updater.add_artifact([text_part(f'Hello, {text}!')], name='greeting')
            await updater.complete()
            log.info('task %s completed (greeting)', task.id)
        elif text == 'ask':
            question = new_agent_text_message('What is your name?', task.context_id, task.id)
            await updater.requires_input(question, final=True)
        elif text.startswith('chunks '):
            await self._chunks(updater, int(text.split()[1]))
        else:
            await updater.add_artifact([text_part(text)], name='echo')
            await updater.complete()

    async def _chunks(self, updater: TaskUpdater, count: int) -> None:
        await updater.start_work()
        for n in range(1, count + 1):
            await updater.add_artifact(
                [text_part(f'part-{n} ')],
                artifact_id='story',
                name='story',
                append=n > 1,
                last_chunk=n == count,
            )
            log.info('chunk %d of %d', n, count)
            await asyncio.sleep(0.15)
        await updater.complete()
        log.info('task %s completed (%d chunks)', updater.task_id, count)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def card(args: argparse.Namespace) -> AgentCard:
    origin = args.public_origin or f'http://127.0.0.1:{args.port}'
    if args.transport == 'jsonrpc':
        transport, url = TransportProtocol.jsonrpc, f'{origin}/a2a'
    else:
        transport, url = TransportProtocol.http_json, origin
    return AgentCard(
        name=f'a2a-sdk 0.3.26 test agent ({transport.value})',
        description='Multi-turn and chunked artifacts for the console tests.',
        url=url,
        preferred_transport=transport.value,
        protocol_version='0.3.0',
        version='1.0.0',
        capabilities=AgentCapabilities(streaming=args.streaming == 'true'),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='test', name='test', description='ask / chunks N / echo', tags=['test'])],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--transport', choices=['jsonrpc', 'rest'], default='jsonrpc')
    parser.add_argument('--streaming', choices=['true', 'false'], default='true')
    parser.add_argument('--protocol', choices=['0.3'], default='0.3')
    # The origin the card advertises, when a proxy stands between the console and the agent.
    parser.add_argument('--public-origin')
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='[py-0.3] %(message)s')

    agent_card = card(args)
    handler = DefaultRequestHandler(agent_executor=TestExecutor(), task_store=InMemoryTaskStore())
    if args.transport == 'jsonrpc':
        app = A2AStarletteApplication(agent_card=agent_card, http_handler=handler).build(rpc_url='/a2a')
    else:
        app = A2ARESTFastAPIApplication(agent_card=agent_card, http_handler=handler).build()
    server = uvicorn.Server(
        uvicorn.Config(app, host='127.0.0.1', port=args.port, log_level='warning', timeout_graceful_shutdown=1)
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.run()


if __name__ == '__main__':
    main()
