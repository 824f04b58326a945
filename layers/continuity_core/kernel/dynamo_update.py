"""One DynamoDB UpdateExpression built piece by piece, with generated placeholders."""

from __future__ import annotations

from typing import Any

from continuity_core.kernel.dynamo_items import to_attribute


class UpdateBuilder:
    """Builds one UpdateExpression with generated placeholders."""

    def __init__(self) -> None:
        self.sets: list[str] = []
        self.adds: list[str] = []
        self.removes: list[str] = []
        self.names: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self.conditions: list[str] = []

    def name(self, attribute: str) -> str:
        placeholder = f"#{attribute}"
        self.names[placeholder] = attribute
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = to_attribute(value)
        return placeholder

    def set(self, attribute: str, value: Any) -> None:
        self.sets.append(f"{self.name(attribute)} = {self.value(value)}")

    def set_if_missing(self, attribute: str, value: Any) -> None:
        if value is None:
            return
        name = self.name(attribute)
        self.sets.append(f"{name} = if_not_exists({name}, {self.value(value)})")

    def append(self, attribute: str, items: list[Any]) -> None:
        name = self.name(attribute)
        empty = self.value([])
        self.sets.append(f"{name} = list_append(if_not_exists({name}, {empty}), {self.value(items)})")

    def add(self, attribute: str, amount: int) -> None:
        self.adds.append(f"{self.name(attribute)} {self.value(amount)}")

    def remove(self, attribute: str) -> None:
        self.removes.append(self.name(attribute))

    def request(self) -> dict[str, Any]:
        clauses = []
        if self.sets:
            clauses.append("SET " + ", ".join(self.sets))
        if self.adds:
            clauses.append("ADD " + ", ".join(self.adds))
        if self.removes:
            clauses.append("REMOVE " + ", ".join(self.removes))
        request: dict[str, Any] = {
            "UpdateExpression": " ".join(clauses),
            "ExpressionAttributeNames": self.names,
        }
        if self.values:
            request["ExpressionAttributeValues"] = self.values
        if self.conditions:
            request["ConditionExpression"] = " AND ".join(self.conditions)
        return request
