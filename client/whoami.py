"""`governor whoami`: who this client is to every server and in every record.

A player is a key: the Ed25519 key in `player_key.pem` of the data folder, made on first use
(the file readable by you alone). Every seat this client takes, every move, commitment and seed
it sends, is signed with it, and the header of each match names it for your seat; the name you
type is only a label. Prints the key's fingerprint (the short form shown beside your name),
where the key is kept, and the name of your latest seat, if one is saved. Keep the file to stay
the same player; copy it (privately) to play as yourself from another machine.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .session import SeatSession, add_data_dir, default_data_dir, player_key, player_key_path


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_dir(p)


def run(args: argparse.Namespace) -> int:
    data = Path(args.data_dir) if args.data_dir else default_data_dir()
    path, kept = player_key_path(data)
    try:
        key = player_key(data)
    except (OSError, ValueError) as e:
        print(f"governor whoami: cannot read or make the player key {path}: {getattr(e, 'strerror', None) or e}")
        return 2
    seats = SeatSession.unfinished(data)
    if seats:
        print(f"Name: {seats[0].name} (your latest seat, at table {seats[0].table})")
    print(f"Player key: {key.fingerprint}")
    print(f"Kept in: {path}" + ("" if kept else " (made now)"))
    return 0
