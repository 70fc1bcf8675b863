"""Closing never hides what matters: every close runs, and the block's own error wins."""

import anyio
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


class Resource:
    def __init__(self, name, log, error=None):
        self.name, self.log, self.error = name, log, error

    def close(self):
        self.log.append(self.name)
        if self.error is not None:
            raise self.error


async def test_a_close_raising_a_control_flow_error_does_not_stop_the_other_closes():
    log = []
    run = lg.Run()
    run.register(Resource("first", log))
    run.register(Resource("interrupted", log, KeyboardInterrupt()))
    run.register(Resource("failing", log, OSError("disk")))

    with pytest.raises(KeyboardInterrupt) as raised:
        await run.aclose()

    assert log == ["failing", "interrupted", "first"]
    assert "OSError: disk" in "".join(raised.value.__notes__)


async def test_a_cleanup_failure_while_a_cancellation_propagates_keeps_the_cancellation():
    context = lg.RunContext()
    context.cancellation.cancel("user left")
    log = []

    with pytest.raises(lg.CancelledError, match="user left") as raised:
        async with lg.Run(context=context) as run:
            run.register(Resource("socket", log, OSError("reset")))
            context.check()

    assert log == ["socket"]
    assert raised.value.__notes__ == [
        "While closing: Closing the run's resources failed (1 failure): OSError: reset"
    ]


async def test_a_cleanup_failure_after_a_clean_block_is_a_cleanup_error():
    with pytest.raises(lg.CleanupError) as raised:
        async with lg.ToolRegistry([Closing]):
            pass

    assert [type(error) for error in raised.value.errors] == [OSError]


async def test_a_run_can_own_a_registry():
    async with lg.Run() as run:
        registry = run.register(lg.ToolRegistry([Closing], binding=lg.Binding(run=run)))
        await registry.open()
        assert registry.names == ("closing",)

    with pytest.raises(lg.ConfigurationError, match="closed"):
        await registry.call("closing", {})


class Closing(lg.Tool):
    description = "Fails to close once the run ends."

    def call(self, input):
        return "ok"

    def close(self):
        if self.run is None:
            raise OSError("cannot close")


async def test_a_natively_cancelled_call_is_reported_as_cancelled(lg_events):
    class Sleeper(lg.Tool):
        description = "Sleeps."

        async def call(self, input):
            await anyio.sleep(10)

    with anyio.move_on_after(0.05):
        await Sleeper().execute({})

    assert [(event.payload["tool"], event.payload["outcome"]) for event in lg_events] == [
        ("sleeper", "cancelled")
    ]
