"""View deltas: the short list of operations that turns one view tree into the next, and a hash
that tells the receiver it rebuilt exactly the server's view.

Operations (paths are lists of map keys and list indices from the root):
  ["set", path, value]                      the value at path becomes value (maps: add or replace)
  ["del", path]                             remove a map key
  ["splice", path, start, count, items]     in the list at path, replace `count` items from
                                            `start` with `items` (covers append, insert, remove)
"""
from __future__ import annotations

import copy
import hashlib

from .codec import pack


class PatchError(ValueError):
    """A delta that does not apply to the view it is said to apply to."""


def _canonical(v):
    """The same value with every map's keys in sorted order, so both ends hash the same bytes."""
    if isinstance(v, dict):
        return {k: _canonical(v[k]) for k in sorted(v, key=lambda k: (type(k).__name__, k))}
    if isinstance(v, (list, tuple)):
        return [_canonical(x) for x in v]
    return v


def view_hash(view) -> bytes:
    return hashlib.sha256(pack(_canonical(view))).digest()[:8]


def diff(old, new, path: list | None = None, ops: list | None = None) -> list:
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
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        # Same length (the players, a city's goods markers): element by element.
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                diff(a, b, path + [i], ops)
    elif isinstance(old, list) and isinstance(new, list):
        # Common prefix and suffix stay; the middle is replaced in one splice.
        start = 0
        while start < len(old) and start < len(new) and old[start] == new[start]:
            start += 1
        end_old, end_new = len(old), len(new)
        while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
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


def _walk(root, path: list):
    node = root
    for k in path:
        try:
            node = node[k]
        except (KeyError, IndexError, TypeError):
            raise PatchError(f"no element at {path!r}") from None
    return node


def patch(view, ops: list):
    """A new view: `view` with the operations applied (the original is not modified)."""
    out = copy.deepcopy(view)
    for op in ops:
        if not isinstance(op, list) or not op or not isinstance(op[1] if len(op) > 1 else None, list):
            raise PatchError(f"malformed operation {op!r}")
        kind, path = op[0], op[1]
        if kind == "set" and len(op) == 3:
            if not path:
                out = copy.deepcopy(op[2])
                continue
            parent = _walk(out, path[:-1])
            key = path[-1]
            if isinstance(parent, dict) or (isinstance(parent, list) and type(key) is int and 0 <= key < len(parent)):
                parent[key] = op[2]
            else:
                raise PatchError(f"cannot set {path!r}")
        elif kind == "del" and len(op) == 2 and path:
            parent = _walk(out, path[:-1])
            if not isinstance(parent, dict) or path[-1] not in parent:
                raise PatchError(f"nothing to delete at {path!r}")
            del parent[path[-1]]
        elif kind == "splice" and len(op) == 5:
            target = _walk(out, path)
            start, count, items = op[2], op[3], op[4]
            if not isinstance(target, list) or type(start) is not int or type(count) is not int \
                    or not isinstance(items, list) or not 0 <= start <= len(target) or count < 0 \
                    or start + count > len(target):
                raise PatchError(f"bad splice at {path!r}")
            target[start:start + count] = items
        else:
            raise PatchError(f"unknown operation {op!r}")
    return out
