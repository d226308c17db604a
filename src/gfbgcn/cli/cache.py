"""`gfbgcn cache info` and `gfbgcn cache clear`: what the cache holds, and removing it
(:mod:`gfbgcn.core.paths`, where the kinds, the size cap and its eviction are described)."""

from __future__ import annotations

import argparse
import json

from gfbgcn.cli.runtime.argtypes import duration
from gfbgcn.core import paths


def cache_info_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def info_table(info: paths.CacheInfo) -> str:
    """The cache's location, cap and usage per kind, as ``cache info`` prints them."""
    where = "" if info.exists else " (not created yet)"
    cap = "none" if info.cap is None else paths.format_size(info.cap)
    default = ", the default" if info.cap == paths.DEFAULT_CACHE_MAX else ""
    grace = f"{paths.EVICT_GRACE_SECONDS / 60:g} min"
    lines = [f"location  {info.root}{where}  (${paths.CACHE_ENV})",
             f"size cap  {cap}  (${paths.CACHE_MAX_ENV}{default}): past it, writing a graph "
             f"or embeddings evicts the least recently used ones (not those used in the last "
             f"{grace})",
             "", f"{'kind':<12}{'entries':>9}{'size':>12}"]
    for name, usage in [*info.kinds.items(), ("total", info.total)]:
        lines.append(f"{name:<12}{usage.entries:>9,}{paths.format_size(usage.bytes):>12}")
    if info.unknown:
        more = " ..." if len(info.unknown) > 5 else ""
        lines.append(f"also there, not gfbgcn's (never removed): "
                     f"{', '.join(info.unknown[:5])}{more}")
    return "\n".join(lines)


def cache_info(args: argparse.Namespace) -> int:
    """Where the cache is, its cap, and the entries and bytes of each kind."""
    info = paths.cache_info()
    print(json.dumps(info.to_dict(), indent=2) if args.json else info_table(info))
    return 0


def cache_clear_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=(*paths.KINDS, "all"), default="all",
                        help="graphs (text graphs), embeddings (document embeddings of "
                        "encoders), other (the reproductions' PyG dataset folders) or all "
                        "(the default)")
    parser.add_argument("--older-than", type=duration, default=None, metavar="DURATION",
                        help="only entries last used more than this long ago: 30s, 15m, 12h, "
                        "7d, 2w (default: every entry)")


def cache_clear(args: argparse.Namespace) -> int:
    """Remove the cache's entries of a kind (those not used lately, with --older-than).
    Writes in progress are left alone; a command reading an entry that goes finishes its read,
    and one that looks it up later rebuilds it."""
    kinds = paths.KINDS if args.kind == "all" else (args.kind,)
    result = paths.clear_cache(kinds, args.older_than)
    root = paths.cache_root()
    print(f"removed {len(result.removed):,} entr{'y' if len(result.removed) == 1 else 'ies'} "
          f"({paths.format_size(result.bytes)}) of {', '.join(kinds)} from {root}")
    for entry in result.failed[:5]:
        print(f"could not remove {entry.path} (permissions, or in use elsewhere)")
    return 0
