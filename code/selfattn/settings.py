"""One validator for every config in the package, driven by the fields' declarations.

A config is a class decorated with :func:`checked`, whose fields are declared
with :func:`setting`: the annotation gives the type (``int``, ``float``, ``bool``
or ``str``), the declaration gives the allowed range (or, for text, the allowed
values) and a few words on what the field controls. The checks run the moment a
config is made (``replace`` too), and every failure is a one-line
:class:`ConfigError` that names the field, the value and what is allowed::

    @checked
    class Example:
        steps: int = setting(100, "optimizer steps", low=1)
        rate: float = setting(0.1, "step size", low=0, low_open=True, high=1)
"""

from __future__ import annotations

import difflib
import functools
import math
from dataclasses import dataclass, field, fields
from typing import Any, get_args, get_type_hints

from selfattn.errors import ConfigError
from selfattn.language import say


@dataclass(frozen=True)
class Rule:
    """What a field accepts: bounds (open or closed), its meaning, and a hint for bad values."""

    help: str  # what the field controls, in a few words (shown by the scripts' --help)
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # True: the value must be greater than ``low``
    high_open: bool = False  # True: the value must be less than ``high``
    hint: str = ""  # appended to an out-of-range message, e.g. typical values
    choices: tuple[str, ...] = ()  # a text field's allowed values

    def allows(self, value: float) -> bool:
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    def describe(self, kind: type) -> str:
        """The allowed range in words, e.g. "at least 1" or "greater than 0 and at most 1"."""
        low, high = self.low, self.high
        if kind is int and not self.low_open and not self.high_open and None not in (low, high):
            return say("from {low} to {high}", low=low, high=high)
        bounds = []
        if low is not None:
            bounds.append(
                say("greater than {low:g}", low=low) if self.low_open else say("at least {low:g}", low=low)
            )
        if high is not None:
            bounds.append(
                say("less than {high:g}", high=high) if self.high_open else say("at most {high:g}", high=high)
            )
        return bounds[0] if len(bounds) == 1 else say("{low} and {high}", low=bounds[0], high=bounds[1])


def setting(default: Any, help: str, **rule: Any) -> Any:
    """Declare a config field: its default, what it controls, and its bounds (see :class:`Rule`)."""
    return field(default=default, metadata={"rule": Rule(help, **rule)})


def setting_of(cls: type, name: str, default: Any) -> Any:
    """Declare a field that follows ``cls``'s field ``name``: its meaning and bounds, another default."""
    (original,) = (f for f in fields(cls) if f.name == name)
    return field(default=default, metadata=original.metadata)


def checked(cls: type) -> type:
    """Make ``cls`` a frozen dataclass whose fields are checked whenever one is made.

    After the fields, an optional ``check_together(self)`` method checks rules
    that involve several fields (e.g. the memory a run needs).
    """
    cls = dataclass(frozen=True)(cls)
    names = [f.name for f in fields(cls)]
    kinds = get_type_hints(cls)
    generated_init = cls.__init__

    @functools.wraps(generated_init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for name in kwargs:
            if name not in names:
                raise ConfigError(_unknown(cls.__name__, name, names))
        if len(args) > len(names):
            raise ConfigError(
                say(
                    "{config} takes at most {n} values; name each one, e.g. seed=1.",
                    config=cls.__name__,
                    n=len(names),
                )
            )
        generated_init(self, *args, **kwargs)
        for f in fields(cls):
            _check(f.name, getattr(self, f.name), kinds[f.name], f.metadata["rule"], f.default)
        if hasattr(self, "check_together"):
            self.check_together()

    def __str__(self) -> str:
        """One ``name = value`` line per field, names right-aligned."""
        return listing(self, names)

    cls.__init__ = __init__
    cls.__str__ = __str__
    return cls


def listing(config: Any, names: list[str]) -> str:
    """One ``name = value`` line for each of ``names``, the names right-aligned."""
    width = max(map(len, names))
    return "\n".join(f"{name:>{width}} = {getattr(config, name)}" for name in names)


def _unknown(config_name: str, name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        return say(
            "{config} has no field {name!r}. Did you mean {close}? Its fields are {names}.",
            config=config_name,
            name=name,
            close=close[0],
            names=", ".join(names),
        )
    return say(
        "{config} has no field {name!r}. Its fields are {names}.",
        config=config_name,
        name=name,
        names=", ".join(names),
    )


def field_type(annotation: Any) -> tuple[type, bool]:
    """A field's value type (``int``, ``float``, ``bool`` or ``str``), and whether it also takes None."""
    args = get_args(annotation)
    if type(None) not in args:
        return annotation, False
    (kind,) = (arg for arg in args if arg is not type(None))
    return kind, True


def _check(name: str, value: Any, kind: Any, rule: Rule, example: Any) -> None:
    """Raise a one-line ConfigError unless ``value`` has the field's type and lies in its range.

    A field annotated ``int | None`` or ``float | None`` also takes None: the setting is off.
    """
    kind, optional = field_type(kind)
    if optional and value is None:
        return
    typed = {"name": name, "value": value, "kind": type(value).__name__}
    if kind is str:
        if value not in rule.choices:
            choices = ", ".join(rule.choices)
            raise ConfigError(
                say("{name}={value!r}: {name} must be one of {choices}.", choices=choices, **typed)
            )
        return
    if kind is bool:
        if not isinstance(value, bool):
            raise ConfigError(say("{name}={value!r} ({kind}): {name} must be True or False.", **typed))
        return
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        if optional:
            what = say("a number or None") if kind is float else say("a whole number (int) or None")
        elif kind is float:
            what = say("a number, e.g. {name}={example!r}", name=name, example=example)
        else:
            what = say("a whole number (int), e.g. {name}={example!r}", name=name, example=example)
        raise ConfigError(say("{name}={value!r} ({kind}): {name} must be {what}.", what=what, **typed))
    if (kind is float and not math.isfinite(value)) or not rule.allows(value):
        allowed = rule.describe(kind)
        what = say("a finite number {allowed}", allowed=allowed) if kind is float else allowed
        if rule.hint:
            said = say(
                "{name}={value}: {name} must be {what} ({hint}).",
                name=name,
                value=value,
                what=what,
                hint=say(rule.hint),
            )
            raise ConfigError(said)
        raise ConfigError(say("{name}={value}: {name} must be {what}.", name=name, value=value, what=what))
