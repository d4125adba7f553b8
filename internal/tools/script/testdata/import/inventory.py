"""Inventory helpers for the warehouse.

Only the first paragraph becomes the rule prompt.
"""
import enum
from os.path import join  # imported: not a tool
from typing import Annotated, Literal, Optional, TypedDict


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


class Box(TypedDict):
    width: int
    label: str


def add_item(name: str, quantity: int = 1, tags: list[str] | None = None,
             unit: Literal["kg", "pcs"] = "pcs") -> dict:
    """Add an item to the inventory.

    Longer explanation that is not part of the description.

    Args:
        name: The item's name.
        quantity (int): How many to add.
            Must be positive.
        tags: Labels for searching.
        unit: The unit of quantity.

    Returns:
        dict: The stored item.
    """
    if quantity < 1:
        raise ValueError("quantity must be positive")
    return {"name": name, "quantity": quantity, "tags": tags or [], "unit": unit}


def scale(values: list[float], factor: float = 2.0, size: Optional[Size] = None,
          boxes: dict[str, Box] = {}, pair: tuple[int, str] = (1, "a")) -> list[float]:
    """Multiply every value.

    Parameters
    ----------
    values : list of float
        The numbers to scale.
    factor : float
        The multiplier.
    """
    return [v * factor for v in values]


def greet(who: Annotated[str, "Whom to greet."], polite: bool = True, *, times=1, **extra) -> str:
    """Greet someone.

    :param polite: Whether to say please.
    """
    print("greeting", who)
    return ", ".join([("Good day, " if polite else "Hi, ") + who] * times)


def shout(text):
    print(text.upper())


def _private():
    pass


def positional(a, /, b):
    """Not a tool: positional-only parameters cannot be passed by name."""


if __name__ == "__main__":
    raise SystemExit("the runner must not run this block")
