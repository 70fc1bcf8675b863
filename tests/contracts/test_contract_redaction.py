"""A contract failure message never carries the credential it found (it lands in CI logs)."""

from __future__ import annotations

import pytest

import littleghost as lg
from littleghost_testing.contracts import ToolContract, check_tool

DSN = "postgres://app:hunter2-correct-horse@db.internal:5432/orders"


class DatabaseTool(lg.Tool):
    description = "Look an order up."
    input_schema = {"type": "object", "properties": {"id": {"type": "integer"}}}

    def call(self, input):
        raise lg.ToolError(f"cannot connect to {DSN}: connection refused")


def test_a_leaked_dsn_is_reported_without_its_password(anyio_backend: str) -> None:
    report = check_tool(
        DatabaseTool, checks=["error_sanitization"], backend=anyio_backend, max_examples=5
    )

    check = report["error_sanitization"]
    assert not check.passed
    assert "a URL with a user and password" in check.explain()
    assert "hunter2" not in check.explain() and "hunter2" not in report.explain()
    assert "cannot connect to postgres" in check.explain()  # the rest stays readable


class DatabaseContract(ToolContract):
    tool_class = DatabaseTool
    max_examples = 5


def test_the_pytest_failure_of_a_tool_contract_is_redacted_too(anyio_backend: str) -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        DatabaseContract().test_error_sanitization(anyio_backend)

    assert "a URL with a user and password" in str(failed.value)
    assert "hunter2" not in str(failed.value)
