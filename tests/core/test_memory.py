import os
import platform

import pytest

from gfbgcn.core.memory import release_free_memory


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_release_keeps_the_data():
    kept = [f"kept {i}" * 40 for i in range(10_000)]
    dropped = [f"dropped {i}" * 40 for i in range(200_000)]
    del dropped
    assert isinstance(release_free_memory(), bool)
    assert kept[1234] == "kept 1234" * 40 and len(kept) == 10_000


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="malloc_trim is glibc's")
def test_release_returns_freed_heap_pages_on_glibc():
    # ~200 MB of 1 kB strings (malloc's heap, not Python's small-object arenas), then one kept
    # string above them: freeing the first ones leaves whole free pages below the heap's top,
    # which glibc keeps resident until trimmed
    dropped = [str(i).rjust(1000, "x") for i in range(200_000)]
    kept = [str(i).rjust(1000, "y") for i in range(1000)]
    del dropped
    before = _rss()
    assert release_free_memory() is True
    assert _rss() < before - 100 * 2**20
    assert kept[7] == "7".rjust(1000, "y")
