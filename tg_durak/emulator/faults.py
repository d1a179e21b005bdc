"""Failure injection: the next calls of a method answer with an error the test chose."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tg_durak.emulator.models import ApiError

_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    409: "Conflict", 500: "Internal Server Error", 502: "Bad Gateway",
}


@dataclass
class _Fault:
    method: str  # lower case: method names are case-insensitive
    remaining: int
    error_code: int
    description: str
    retry_after: int | None
    when: Callable[[dict[str, Any]], bool] | None


class Faults:
    """Errors queued by tests, checked before each request reaches its method."""

    def __init__(self) -> None:
        self._queued: list[_Fault] = []

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        error_code: int = 500,
        description: str | None = None,
        retry_after: int | None = None,
        when: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        """Make the next `times` calls of `method` (matching `when(params)`) fail like this."""
        if description is None:
            description = (
                f"Too Many Requests: retry after {retry_after}" if error_code == 429
                else _DEFAULT_DESCRIPTIONS.get(error_code, "Internal Server Error")
            )
        if error_code == 429 and retry_after is None:
            raise ValueError("a 429 needs retry_after")
        self._queued.append(
            _Fault(method.lower(), times, error_code, description, retry_after, when)
        )

    def check(self, method: str, params: dict[str, Any]) -> None:
        """Raise the first queued error for this call, if any, and count it as used once."""
        for fault in self._queued:
            if fault.method == method.lower() and (fault.when is None or fault.when(params)):
                fault.remaining -= 1
                if fault.remaining <= 0:
                    self._queued.remove(fault)
                raise ApiError(fault.error_code, fault.description, fault.retry_after)
