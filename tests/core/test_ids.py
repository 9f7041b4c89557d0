"""Minted ids: uuid4-shaped, never repeated, not even by a forked child (ids come from a pool
of random bytes read ahead; a child must not mint what its parent will)."""

from __future__ import annotations

import os
import re
import uuid

from claimgraph.core.shell import uuid_ids

UUID4 = re.compile(r"^f-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_ids_are_uuid4_and_never_repeat_across_many_pool_refills():
    ids = [uuid_ids("f") for _ in range(5_000)]
    assert len(set(ids)) == len(ids)
    assert all(UUID4.match(i) for i in ids)
    assert uuid.UUID(ids[0][2:]).version == 4


def test_a_forked_child_mints_none_of_the_ids_its_parent_mints_next():
    uuid_ids("f")  # the pool now holds ids the parent has not used yet
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its ids, then leave without running the parent's cleanup
        os.close(read)
        os.write(write, " ".join(uuid_ids("f") for _ in range(50)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        child = set(pipe.read().decode().split())
    os.waitpid(pid, 0)
    parent = {uuid_ids("f") for _ in range(50)}
    assert len(child) == 50 and not child & parent
