"""A test agent on the official Python A2A SDK (a2a-sdk 1.3.0), driven by the console's
integration tests (server/tests/it/sdk_agents.rs).

Behaviour, chosen by the user's text:
- `ask`: the task goes INPUT_REQUIRED asking "What is your name?"; the reply (same task) is
  answered after ~300 ms with the artifact `greeting` = `Hello, <name>!` (added first), then the
  task completes.
- `chunks N`: one artifact `story` in N append chunks `part-1 ` … `part-N ` ~150 ms apart
  (last_chunk on the last), then completed.
- anything else: the artifact `echo` = the text, then completed.

Usage: agent.py --port P --transport jsonrpc|rest --streaming true|false --protocol 1.0|0.3
       [--public-origin http://127.0.0.1:Q]
The card (/.well-known/agent-card.json) advertises only the chosen interface.
"""

import argparse
import asyncio
import logging
import signal
import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers import new_text_message, new_text_part, new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    TaskState,
)

log = logging.getLogger('sdk-agent')


class TestExecutor(AgentExecutor):
    """The agent's logic, publishing through the SDK's TaskUpdater."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input().strip()
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        log.info('task %s state %s text %r', task.id, TaskState.Name(task.status.state), text)
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            # The reply: answered late, so a non-blocking send sees the paused snapshot.
            await asyncio.sleep(0.3)
            await updater.add_artifact([new_text_part(f'Hello, {text}!')], name='greeting')
            await updater.complete()
            log.info('task %s completed (greeting)', task.id)
        elif text == 'ask':
            question = new_text_message(
                'What is your name?', context_id=task.context_id, task_id=task.id
            )
            await updater.requires_input(question)
        elif text.startswith('chunks '):
            await self._chunks(updater, int(text.split()[1]))
        else:
            await updater.add_artifact([new_text_part(text)], name='echo')
            await updater.complete()

    async def _chunks(self, updater: TaskUpdater, count: int) -> None:
        await updater.start_work()
        for n in range(1, count + 1):
            await updater.add_artifact(
                [new_text_part(f'part-{n} ')],
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
    binding, url = ('JSONRPC', f'{origin}/a2a') if args.transport == 'jsonrpc' else ('HTTP+JSON', origin)
    return AgentCard(
        name=f'a2a-sdk 1.3.0 test agent ({binding} {args.protocol})',
        description='Multi-turn and chunked artifacts for the console tests.',
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=binding, protocol_version=args.protocol)
        ],
        capabilities=AgentCapabilities(streaming=args.streaming == 'true'),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='test', name='test', description='ask / chunks N / echo', tags=['test']
            )
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--transport', choices=['jsonrpc', 'rest'], default='jsonrpc')
    parser.add_argument('--streaming', choices=['true', 'false'], default='true')
    parser.add_argument('--protocol', choices=['1.0', '0.3'], default='1.0')
    # The origin the card advertises, when a proxy stands between the console and the agent.
    parser.add_argument('--public-origin')
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='[py-1.3] %(message)s')

    agent_card = card(args)
    handler = DefaultRequestHandler(
        agent_executor=TestExecutor(), task_store=InMemoryTaskStore(), agent_card=agent_card
    )
    compat = args.protocol == '0.3'
    routes = create_agent_card_routes(agent_card)
    if args.transport == 'jsonrpc':
        routes += create_jsonrpc_routes(handler, '/a2a', enable_v0_3_compat=compat)
    else:
        routes += create_rest_routes(handler, enable_v0_3_compat=compat)
    config = uvicorn.Config(
        Starlette(routes=routes),
        host='127.0.0.1',
        port=args.port,
        log_level='warning',
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)

    def stop(*_: object) -> None:
        # Open SSE streams would hold a graceful shutdown: a test agent just ends.
        sys.stderr.flush()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    server.run()


if __name__ == '__main__':
    main()
