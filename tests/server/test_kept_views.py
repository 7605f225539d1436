"""What a table keeps of the views it sent: of a new view, the fields that did not change are the
objects it kept before, so that the collector's young generation holds only what changed
(server/heap.py). Seeded matches go through the server's own output path (bench/frames.py)."""
from __future__ import annotations

import pytest

from server.broadcast import Broadcaster

from .test_frame_lengths import frames


@pytest.mark.parametrize("game,players,options", [("sanjuan", 4, {"expansion": True}), ("puertorico", 3, {})])
def test_a_field_that_did_not_change_is_the_object_kept_before(monkeypatch, game, players, options):
    counts = {"kept": 0, "changed": 0}

    class Watched(Broadcaster):
        def show(self, shown, actor):
            before = {seat: sent.view for seat, sent in self._sent.items()}
            super().show(shown, actor)
            for seat, sent in self._sent.items():
                for k, v in sent.view.items():
                    if k in before.get(seat, {}) and isinstance(v, (dict, list)):
                        if before[seat][k] == v:
                            assert v is before[seat][k], (seat, k)
                            counts["kept"] += 1
                        else:
                            counts["changed"] += 1

    monkeypatch.setattr(frames, "Broadcaster", Watched)
    frames.play(game, players, options, f"kept/{game}", twins=False)
    assert counts["kept"] > counts["changed"] > 0
