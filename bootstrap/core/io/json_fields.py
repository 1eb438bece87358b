"""Reading JSON that tritondev wrote or that its scripts answered, one typed field at a time.

A state file, a journal or a script's answer is outside input by the time it is read back: a hand edit,
a truncated write or another version of tritondev may have changed it. Each reader of such JSON goes
through `Fields`, which hands out typed values and raises BadField naming the file (or script) and the
field that is not as agreed (missing, null where a value is needed, of another type). The reader turns
BadField into an error of its own (a failed probe, a journal to move aside).

JSON has no separate bool and int, Python does (bool is an int): they are kept apart here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, Union

# A JSON value as json.loads gives it back.
JsonValue = Union[str, int, float, bool, None, list["JsonValue"], dict[str, "JsonValue"]]  # noqa: UP007
T = TypeVar("T")

_KIND_NAMES = {str: "str", int: "int", float: "float", bool: "bool", list: "list", dict: "an object"}


class BadField(ValueError):
    """A field that is not as agreed. where: the file or script, with the path of the object the field
    is in (`journal.json: runs[3]`); the message names the field too."""

    def __init__(self, message: str, *, where: str) -> None:
        super().__init__(message)
        self.where = where


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class Fields:
    """One JSON object of a file or an answer, read field by field."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise BadField(f"{where} is {_kind(data)}, not an object", where=where)
        self.data: Mapping[str, object] = data
        self.where = where

    def has(self, key: str) -> bool:
        """The key is there with a value (null counts as absent, as every reader here treats it)."""
        return self.data.get(key) is not None

    def _value(self, key: str, kind: type[T] | tuple[type, ...], required: bool) -> object:
        value = self.data.get(key)
        if value is None:
            if required:
                raise BadField(f"{self.where}: no {key!r}", where=self.where)
            return None
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
            raise BadField(f"{self.where}: {key!r} is {_kind(value)}, not {names}", where=self.where)
        return value

    def text(self, key: str) -> str:
        return str(self._value(key, str, True))

    def optional_text(self, key: str) -> str | None:
        value = self._value(key, str, False)
        return None if value is None else str(value)

    def flag(self, key: str) -> bool:
        return bool(self._value(key, bool, True))

    def optional_flag(self, key: str, default: bool = False) -> bool:
        value = self._value(key, bool, False)
        return default if value is None else bool(value)

    def integer(self, key: str) -> int:
        value = self._value(key, int, True)
        assert isinstance(value, int)
        return value

    def optional_integer(self, key: str) -> int | None:
        value = self._value(key, int, False)
        return None if not isinstance(value, int) else value

    def text_or_integer(self, key: str) -> str | int:
        """A value JSON gives as either (an arch: 90 for CUDA, "gfx942" for HIP), as it was given."""
        value = self._value(key, (str, int), True)
        assert isinstance(value, (str, int))
        return value

    def optional_number(self, key: str) -> float | None:
        value = self._value(key, (int, float), False)
        return None if not isinstance(value, (int, float)) else float(value)

    def _items(self, key: str, kind: type, required: bool) -> list[object] | None:
        value = self._value(key, list, required)
        if not isinstance(value, list):
            return None
        for index, item in enumerate(value):
            if not isinstance(item, kind) or (isinstance(item, bool) and kind is not bool):
                raise BadField(
                    f"{self.where}: {key}[{index}] is {_kind(item)}, not {_KIND_NAMES.get(kind, 'str')}",
                    where=self.where,
                )
        return list(value)

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of strings; () when the key is absent or null."""
        return tuple(str(item) for item in self._items(key, str, False) or ())

    def optional_texts(self, key: str) -> tuple[str, ...] | None:
        """A list of strings, or None when the key is absent or null."""
        found = self._items(key, str, False)
        return None if found is None else tuple(str(item) for item in found)

    def numbers(self, key: str) -> tuple[int, ...] | None:
        """A list of integers, or None when the key is absent or null."""
        found = self._items(key, int, False)
        return None if found is None else tuple(int(str(item)) for item in found)

    def object(self, key: str) -> Fields:
        return Fields(self._value(key, dict, True), f"{self.where}: {key}")

    def optional_object(self, key: str) -> Fields | None:
        value = self._value(key, dict, False)
        return None if value is None else Fields(value, f"{self.where}: {key}")

    def objects(self, key: str) -> list[Fields] | None:
        """A list of JSON objects, each as Fields (`where: key[i]`), or None when the key is absent or null."""
        found = self._items(key, dict, False)
        return None if found is None else [Fields(item, f"{self.where}: {key}[{i}]") for i, item in enumerate(found)]

    def text_map(self, key: str) -> dict[str, str]:
        """{name: text} (a script's `errors`); {} when absent."""
        value = self._value(key, dict, False)
        found: dict[str, str] = {}
        for name, text in (value if isinstance(value, dict) else {}).items():
            if not isinstance(text, str):
                raise BadField(f"{self.where}: {key}[{name!r}] is {_kind(text)}, not str", where=self.where)
            found[str(name)] = text
        return found

    def json(self, key: str) -> JsonValue:
        """A value handed on as JSON (a source's own record, passed through to a --json document)."""
        return as_json(self.data.get(key))


def as_json(value: object) -> JsonValue:
    """`value` as a JSON value: what json.loads gives back already is one; anything else is not."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): as_json(item) for key, item in value.items()}
    raise BadField(f"{_kind(value)} is not a JSON value", where="")
