"""Running a command's coroutine so that Ctrl-C always ends it with KeyboardInterrupt.

asyncio.run turns Ctrl-C into a cancellation of the coroutine and raises KeyboardInterrupt only
when the coroutine ends cancelled. That loses a Ctrl-C when the coroutine had already chosen to
return as the signal came: a script that interrupts `governor play` and closes its stdin, or a
terminal closing, delivers the end of input and the signal together, and the seat then ends as
"input closed" (exit 0); the cancellation that follows lands in a cleanup step that absorbs it,
such as awaiting a task it cancelled. So the signal itself is remembered here, whatever becomes
of the cancellation.
"""
from __future__ import annotations

import asyncio
import signal
from typing import Awaitable, TypeVar

T = TypeVar("T")


def run_interruptibly(main: Awaitable[T]) -> T:
    """asyncio.run(main), raising KeyboardInterrupt after a Ctrl-C once `main` has wound down
    (a second Ctrl-C does not wait for that)."""
    interrupted = False

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def on_ctrl_c() -> None:
            nonlocal interrupted
            if interrupted:
                raise KeyboardInterrupt
            interrupted = True
            task.cancel()

        loop.add_signal_handler(signal.SIGINT, on_ctrl_c)
        try:
            return await main
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    try:
        result = asyncio.run(guarded())
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    if interrupted:
        raise KeyboardInterrupt
    return result
