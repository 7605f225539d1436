"""View deltas: the short list of operations that turns one view tree into the next, and a hash
that tells the receiver it rebuilt exactly the server's view.

Operations (paths are lists of map keys and list indices from the root):
  ["set", path, value]                      the value at path becomes value (maps: add or replace)
  ["del", path]                             remove a map key
  ["splice", path, start, count, items]     in the list at path, replace `count` items from
                                            `start` with `items` (covers append, insert, remove)
"""
from __future__ import annotations

import hashlib
import json

from games.errors import Refused


class PatchError(Refused):
    """A delta that does not apply to the view it is said to apply to."""


def view_hash(view) -> bytes:
    """8 bytes naming a view's content whatever the order of its map keys: the SHA-256 of its
    JSON with sorted keys (views are plain data: maps with string keys, lists, strings, ints,
    booleans and None)."""
    return hash_fields({k: field_text(k, v) for k, v in view.items()})


# JSON, because its encoder sorts keys in C; made once, since json.dumps makes one every call.
_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def field_text(key: str, value) -> str:
    """A view's field as its JSON with sorted keys writes it: `"key":value`."""
    return f"{_JSON.encode(key)}:{_JSON.encode(value)}"


def item_text(value) -> str:
    """An item of a list in a view, as its JSON writes it (see list_field_text)."""
    return _JSON.encode(value)


def list_field_text(key: str, items: list[str]) -> str:
    """field_text of a field whose value is a list with items of this text (item_text): the server
    writes anew only the items that changed (server/broadcast.py)."""
    return f"{_JSON.encode(key)}:[{','.join(items)}]"


def hash_fields(fields: dict[str, str]) -> bytes:
    """view_hash of the view whose fields have this text (`field_text`): its JSON is put together
    from them."""
    return SharedHash(fields).of({})


class SharedHash:
    """view_hash of views that show the same text of some fields (`shared`, each field's
    `field_text`) and each their own text of the others: the view's JSON put together from the
    text of each field, in key order. What comes before the first of a view's own fields is
    hashed once, and so are the shared texts between and after them put together; a view's hash
    then costs the hashing of its own fields' text and of what follows the first of them. The
    server makes it once per change, for the fields every seat's view shares (server/broadcast.py)."""

    def __init__(self, shared: dict[str, str]) -> None:
        self.shared = shared
        self._plans: dict[tuple, tuple] = {}     # the own fields' keys -> (head, [(own key, text after it)])

    def of(self, own: dict[str, str]) -> bytes:
        """The hash of the view with the shared fields and these (none of them shared)."""
        keys = tuple(own)
        plan = self._plans.get(keys)
        if plan is None:
            plan = self._plans[keys] = self._plan(keys)
        head, rest = plan
        h = head.copy()
        for key, after in rest:
            h.update(own[key].encode())
            h.update(after)
        return h.digest()[:8]

    def _plan(self, own: tuple) -> tuple:
        """The SHA-256 of the text before the first own field, and after each own field the
        shared text up to the next one (or the end)."""
        parts: list[list[str]] = [["{"]]          # the shared text before each own field, and after the last
        for i, k in enumerate(sorted([*self.shared, *own])):
            if i:
                parts[-1].append(",")
            if k in self.shared:
                parts[-1].append(self.shared[k])
            else:
                parts.append([])
        parts[-1].append("}")
        texts = ["".join(p).encode() for p in parts]
        return hashlib.sha256(texts[0]), list(zip(sorted(own), texts[1:]))


def diff(old, new, path: list | None = None, ops: list | None = None) -> list:
    """The operations that turn `old` into `new`. On the way, every part of `new` found equal to
    the part of `old` at its place becomes that very object of `old`'s (an equal value: `new`
    means what it meant): whoever keeps `new` then keeps one copy of what did not change, and the
    next comparison of those parts is of an object with itself, which takes no time. A server
    keeping hundreds of tables' views keeps the collector's young generation small so
    (server/heap.py)."""
    path = path or []
    ops = [] if ops is None else ops
    if isinstance(old, dict) and isinstance(new, dict):
        for k in old:
            if k not in new:
                ops.append(["del", path + [k]])
        for k, v in new.items():
            if k not in old:
                ops.append(["set", path + [k], v])
            elif old[k] != v:
                diff(old[k], v, path + [k], ops)
            else:
                new[k] = old[k]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        # Same length (the players, a city's goods markers): element by element.
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                diff(a, b, path + [i], ops)
            else:
                new[i] = a
    elif isinstance(old, list) and isinstance(new, list):
        # Common prefix and suffix stay; the middle is replaced in one splice.
        start = 0
        while start < len(old) and start < len(new) and old[start] == new[start]:
            new[start] = old[start]
            start += 1
        end_old, end_new = len(old), len(new)
        while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
            new[end_new - 1] = old[end_old - 1]
            end_old -= 1
            end_new -= 1
        removed, added = end_old - start, new[start:end_new]
        if removed == 1 and len(added) == 1 and isinstance(added[0], (dict, list)) \
                and type(old[start]) is type(added[0]):
            diff(old[start], added[0], path + [start], ops)  # one element changed inside
        else:
            ops.append(["splice", path, start, removed, added])
    else:
        ops.append(["set", path, new])
    return ops


def _copy_path(root, path: list):
    """Copy the containers from the root down to the one at `path` and return (new root, that
    container). Everything off the path is shared with the old view: never modified, only
    replaced, so a patch costs what it changes, not the size of the view."""
    root = root.copy() if isinstance(root, (dict, list)) else root
    node = root
    for k in path:
        try:
            child = node[k]
        except (KeyError, IndexError, TypeError):
            raise PatchError("bad_delta", f"no element at {path!r}") from None
        if not isinstance(child, (dict, list)):
            raise PatchError("bad_delta", f"no container at {path!r}")
        node[k] = child = child.copy()
        node = child
    return root, node


def patch(view, ops: list):
    """A new view: `view` with the operations applied (the original is not modified)."""
    out = view
    for op in ops:
        if not isinstance(op, list) or len(op) < 2 or not isinstance(op[1], list):
            raise PatchError("bad_delta", f"malformed operation {op!r}")
        kind, path = op[0], op[1]
        # Map keys are strings and list indices ints (type(): True would index like 1); anything
        # else, a list say, would not even be hashable.
        if not all(type(k) in (str, int) for k in path):
            raise PatchError("bad_delta", f"bad path {path!r}: its elements are map keys and list indices")
        if kind == "set" and len(op) == 3:
            if not path:
                out = op[2]
                continue
            out, parent = _copy_path(out, path[:-1])
            key = path[-1]
            if isinstance(parent, dict) and type(key) is str:
                parent[key] = op[2]
            elif isinstance(parent, list) and type(key) is int and 0 <= key < len(parent):
                parent[key] = op[2]
            else:
                raise PatchError("bad_delta", f"cannot set {path!r}")
        elif kind == "del" and len(op) == 2 and path:
            out, parent = _copy_path(out, path[:-1])
            if not isinstance(parent, dict) or path[-1] not in parent:
                raise PatchError("bad_delta", f"nothing to delete at {path!r}")
            del parent[path[-1]]
        elif kind == "splice" and len(op) == 5:
            out, target = _copy_path(out, path)
            start, count, items = op[2], op[3], op[4]
            if not isinstance(target, list) or type(start) is not int or type(count) is not int \
                    or not isinstance(items, list) or not 0 <= start <= len(target) or count < 0 \
                    or start + count > len(target):
                raise PatchError("bad_delta", f"bad splice at {path!r}")
            target[start:start + count] = items
        else:
            raise PatchError("bad_delta", f"unknown operation {op!r}")
    return out
