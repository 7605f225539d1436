"""View deltas: patch(old, diff(old, new)) == new, hashes agree, malformed deltas are refused."""
from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import sanjuan
from protocol.codec import pack
from protocol.diff import (PatchError, SharedHash, diff, field_text, hash_fields, item_text, list_field_text,
                           patch, view_hash)
from protocol.fairness import local_streams

leaves = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3), st.binary(max_size=3))
trees = st.recursive(leaves, lambda kids: st.one_of(st.lists(kids, max_size=5),
                                                    st.dictionaries(st.text(max_size=2), kids, max_size=4)),
                     max_leaves=20)


@settings(deadline=None)
@given(trees, trees)
def test_patch_of_diff_rebuilds_any_tree(old, new):
    assert patch(old, diff(old, new)) == new


def test_what_did_not_change_becomes_the_old_objects_and_the_new_tree_means_the_same():
    """A server keeps the views it sent: of a new one, only what changed is new objects
    (server/broadcast.py), which the collector's young generation then holds alone."""
    old = {"same": [1, [2]], "changed": {"kept": [3], "new": [4]}, "grew": [[1], [2], [3]], "gone": [0]}
    new = {"same": [1, [2]], "changed": {"kept": [3], "new": [5]}, "grew": [[1], [9], [2], [3]]}
    ops = diff(old, new)
    assert new == {"same": [1, [2]], "changed": {"kept": [3], "new": [5]}, "grew": [[1], [9], [2], [3]]}
    assert patch(old, ops) == new
    assert new["same"] is old["same"] and new["changed"]["kept"] is old["changed"]["kept"]
    assert new["changed"] is not old["changed"] and new["changed"]["new"] is not old["changed"]["new"]
    assert [n is o for n, o in zip(new["grew"], old["grew"] + [None])] == [True, False, False, False]
    assert new["grew"][2] is old["grew"][1] and new["grew"][3] is old["grew"][2]   # the equal end


def test_patch_does_not_modify_its_input():
    old = {"a": [1, 2, 3], "b": {"c": 1}}
    patch(old, diff(old, {"a": [1, 3], "b": {"c": 2}}))
    assert old == {"a": [1, 2, 3], "b": {"c": 1}}


@pytest.mark.parametrize("players,expansion", [(2, False), (4, True)])
def test_deltas_rebuild_every_view_of_a_real_game_and_stay_small(players, expansion):
    rng = local_streams(f"diff/{players}")
    s = sanjuan.setup([f"P{i}" for i in range(players)], {"expansion": expansion}, rng)
    moves = random.Random(1)
    seats = [*range(players), None]
    seen = {seat: sanjuan.view(s, seat) for seat in seats}
    delta_bytes = snapshot_bytes = 0
    while not s.over:
        seat = sanjuan.to_act(s)[0]
        sanjuan.apply(s, seat, sanjuan.random_action(s, seat, moves), rng)
        for who in seats:
            new = sanjuan.view(s, who)
            ops = diff(seen[who], new)
            rebuilt = patch(seen[who], ops)
            assert rebuilt == new and view_hash(rebuilt) == view_hash(new)
            delta_bytes += len(pack(ops))
            snapshot_bytes += len(pack(new))
            seen[who] = new
    # Each new question brings its options' labels and help texts whole (18.8% and 11.4% before
    # prompts carried them; 25.9% and 13.7% since).
    assert delta_bytes < 0.3 * snapshot_bytes


def test_hash_ignores_key_order_but_not_content():
    assert view_hash({"a": 1, "b": [1, 2]}) == view_hash({"b": [1, 2], "a": 1})
    assert view_hash({"a": 1, "b": [1, 2]}) != view_hash({"a": 1, "b": [2, 1]})


views = st.dictionaries(st.text(max_size=3), st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.text(max_size=4)),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=3), kids, max_size=4)),
    max_leaves=12), max_size=6)


@settings(deadline=None)
@given(views)
def test_the_hash_made_from_the_text_of_each_field_is_that_of_the_whole_views_json(view):
    """What every client of this protocol version computes (the SHA-256 of the view's JSON with
    sorted keys): the server puts it together from the text of each field, that of the fields
    every seat shares made once per change, and must land on the same bytes."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hash_fields({k: field_text(k, v) for k, v in view.items()}) == hashlib.sha256(text.encode()).digest()[:8]
    for k, v in view.items():     # a list's text put together from its items' (the players' written once each)
        if isinstance(v, list):
            assert list_field_text(k, [item_text(item) for item in v]) == field_text(k, v)


@settings(deadline=None)
@given(views, st.data())
def test_the_hash_of_views_sharing_some_fields_is_that_of_each_whole_view(view, data):
    """The server hashes the text every seat's view shares once per change (SharedHash) and each
    seat's own fields beside it, wherever they fall among the shared ones in key order."""
    own = data.draw(st.lists(st.sampled_from(sorted(view)), unique=True) if view else st.just([]))
    shared = SharedHash({k: field_text(k, v) for k, v in view.items() if k not in own})
    for variant in (view, {**view, **{k: [view[k], k] for k in own}}):   # two seats' own fields, one SharedHash
        text = json.dumps(variant, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert shared.of({k: field_text(k, variant[k]) for k in own}) == hashlib.sha256(text.encode()).digest()[:8]


@pytest.mark.parametrize("ops", [
    [["set", ["x", "y"], 1]],            # no such parent
    [["del", ["missing"]]],
    [["splice", ["a"], 5, 1, []]],       # beyond the list
    [["splice", ["a"], 0, 9, []]],
    [["splice", ["b"], 0, 0, []]],       # not a list
    [["move", ["a"]]],                   # unknown operation
    ["set"], [["set", "a", 1]], [[]],
])
def test_malformed_or_misapplied_deltas_are_refused(ops):
    with pytest.raises(PatchError):
        patch({"a": [1, 2], "b": {}}, ops)


@pytest.mark.parametrize("ops", [
    [["set", [[1]], 1]],                 # a list as a map key: not even hashable
    [["del", [[1]]]],
    [["set", ["a", [1]], 1]],
    [["del", ["b", {"x": 1}]]],
    [["splice", ["a", True], 0, 0, [9]]],  # True is not the index 1
    [["set", ["a", 0, False], 9]],
    [["set", ["b", 1], 1]],              # view maps have string keys only
    [["set", ["b", None], 1]],
    [["set", ["b", 1.5], 1]],
])
def test_a_path_is_made_of_map_keys_and_list_indices(ops):
    view = {"a": [[1], [2]], "b": {}}
    with pytest.raises(PatchError, match="bad path|cannot set"):
        patch(view, ops)
    assert view == {"a": [[1], [2]], "b": {}}
