#!/usr/bin/env bash
# The graph-classification grid of REDDIT-BINARY and COLLAB on one GPU, as far as a time budget
# goes, resumable: `gfbgcn reproduce graphs --batch-runs 20 --device cuda` (a fold's 20
# configurations of a model trained as one batched model), starting from the records committed
# in docs/results/raw/graphs, and the records it makes packed under $OUT.
#
# Two steps, both from the repository root:
#
#   benchmarks/gpu_graph_grid.sh pack [DATASET ...]
#       Here, where the data root is ($GFBGCN_DATA, else ../shared/data): writes .gpu-graphs/
#       (git-ignored): the data sets (default REDDIT-BINARY COLLAB;
#       TU raw files xz-compressed, S2V zips as they are) and the pure-Python package the CUDA
#       machines lack (platformdirs, copied from this environment). About 8 MB; it travels with
#       the working tree (64 MiB in all; the tracked tree is ~52 MiB), so the device call
#       names .gpu-graphs in `carry`.
#
#   benchmarks/gpu_graph_grid.sh run [gfbgcn reproduce graphs options ...]
#       On the device machine, with the image's python3 (torch, PyG): unpacks the data under
#       /tmp, copies the committed records, then per data set of GRID_SPECS runs the grid until
#       GRID_SECONDS have passed (each command is stopped with SIGINT when the budget is out;
#       records are written atomically, so a stopped grid resumes on the next call), and writes
#       to $OUT: graph-records.tar.gz (the records made here, the invocation log and the
#       report, paths raw/graphs/... as under docs/results), graphs.md and grid.log.
#       Extra options go to every command (e.g. --fold-limit 2).
#
#   tar xzf <files_at>/graph-records.tar.gz -C docs/results
#       Back here: the records join the committed ones (untracked files travel too, so the next
#       device call resumes after them); commit them with the report.
#
# Settings (environment): GRID_SPECS "NAME:EPOCHS ..." (default "REDDIT-BINARY:50 COLLAB:30":
# the epoch budgets of the committed 64x3 records, whose keys the grid contains, patience 10 as
# theirs), GRID_SECONDS (480: one device command may run 600 s), GRID_BATCH_RUNS (20),
# GRID_DEVICE (cuda), PYTHON (python3).
#
# A device call (timeout_s 600, carry [".gpu-graphs"]):
#   PYTHONUNBUFFERED=1 bash benchmarks/gpu_graph_grid.sh run
# Tested on the CPU (2 cores, 2026-11-28) with grids of MUTAG configurations that have no
# committed record:
#   benchmarks/gpu_graph_grid.sh pack MUTAG
#   OUT=/tmp/out PYTHON=.venv/bin/python GRID_DEVICE=cpu GRID_SPECS="MUTAG:3" \
#     benchmarks/gpu_graph_grid.sh run --folds 4 --fold-limit 2 --hiddens 4 8 --layers 1 2
# made the 16 records in 14 s; with GRID_SPECS="MUTAG:60 PROTEINS:5" GRID_SECONDS=60 and
# --folds 4 --hiddens 8 24 40 56, the budget stopped MUTAG after 100 of its 320 runs (status
# 124, every record whole, the log entry unfinished; PROTEINS not started), and a second call,
# after the tarball was extracted into docs/results of a copy of the tree, made the other 220.
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd); cd "$root"
bundle=.gpu-graphs
python=${PYTHON:-python3}

pack() {
  local data=${GFBGCN_DATA:-$root/../shared/data} sets=("$@")
  [ ${#sets[@]} -gt 0 ] || sets=(REDDIT-BINARY COLLAB)
  rm -rf "$bundle"; mkdir -p "$bundle/data/tu_s2v" "$bundle/site"
  for ds in "${sets[@]}"; do
    if [ -f "$data/tu/$ds/raw/${ds}_A.txt" ]; then
      mkdir -p "$bundle/data/tu/$ds/raw"
      for f in "$data/tu/$ds/raw/"*.txt; do xz -T0 -6 -c "$f" > "$bundle/data/tu/$ds/raw/$(basename "$f").xz"; done
    elif [ -f "$data/tu_s2v/$ds.zip" ]; then
      cp "$data/tu_s2v/$ds.zip" "$bundle/data/tu_s2v/"
    else
      echo "no data set $ds under $data (tu/$ds/raw or tu_s2v/$ds.zip)" >&2; exit 2
    fi
  done
  cp -r "$("$python" -c 'import os, platformdirs; print(os.path.dirname(platformdirs.__file__))')" "$bundle/site/"
  echo "$(du -sh "$bundle" | cut -f1) in $bundle; with the tracked tree: $(( ($(du -sk "$bundle" | cut -f1) + $(git ls-files -z | du -skc --files0-from=- | tail -1 | cut -f1)) / 1024 )) MiB (limit 64)"
}

unpack() {  # the bundle's data under $1, the TU files decompressed (Python's lzma: no xz needed)
  "$python" - "$bundle/data" "$1" <<'PY'
import lzma, shutil, sys
from pathlib import Path
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
for f in sorted(p for p in src.rglob("*") if p.is_file()):
    out = dst / f.relative_to(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    if f.suffix == ".xz":
        with lzma.open(f) as packed, open(out.with_suffix(""), "wb") as plain:
            shutil.copyfileobj(packed, plain)
    else:
        shutil.copy(f, out)
PY
}

run() {
  : "${OUT:?OUT must name the folder the results go to}"
  [ -d "$bundle" ] || { echo "no $bundle: run '$0 pack' first and carry it" >&2; exit 2; }
  local start=$SECONDS budget=${GRID_SECONDS:-480} specs=${GRID_SPECS:-"REDDIT-BINARY:50 COLLAB:30"}
  local work=${GRID_WORK:-/tmp/gfbgcn-graph-grid}
  rm -rf "$work"; mkdir -p "$work/results/raw"
  unpack "$work/data"
  export PYTHONPATH="$root/$bundle/site:$root/src${PYTHONPATH:+:$PYTHONPATH}"
  export GFBGCN_DATA="$work/data" GFBGCN_CACHE="$work/cache"
  cp -r docs/results/raw/graphs "$work/results/raw/"  # the committed records: resume from them
  cp docs/results/graphs_notes.md "$work/results/" 2>/dev/null || true  # the report's notes
  touch "$work/marker"; sleep 1  # records written after this are the ones made here
  { nvidia-smi -L 2>/dev/null || true
    "$python" -c 'import torch, torch_geometric as g; print("torch", torch.__version__, "pyg", g.__version__, "cuda", torch.cuda.is_available())'
    for spec in $specs; do
      local ds=${spec%%:*} epochs=${spec#*:} left=$(( budget - (SECONDS - start) ))
      if [ "$left" -lt 30 ]; then echo "budget spent: $ds not started"; continue; fi
      echo "== $ds: --epochs $epochs, at most ${left}s"
      timeout -s INT -k 30 "$left" "$python" -m gfbgcn reproduce graphs --datasets "$ds" \
        --epochs "$epochs" --patience 10 --batch-runs "${GRID_BATCH_RUNS:-20}" \
        --device "${GRID_DEVICE:-cuda}" --out "$work/results" "$@" \
        || echo "== $ds stopped (status $?): resumable"
    done
    echo "== records made here: $(find "$work/results/raw/graphs" -name '*=*.json' -newer "$work/marker" | wc -l) in $(( SECONDS - start ))s"
  } 2>&1 | tee "$work/grid.log"
  (cd "$work/results" && { find raw/graphs -name '*=*.json' -newer "$work/marker"
     ls raw/graphs/invocations.json graphs.md 2>/dev/null || true; } > "$work/made.txt" \
     && tar czf "$OUT/graph-records.tar.gz" -T "$work/made.txt")
  cp "$work/grid.log" "$OUT/"
  if [ -f "$work/results/graphs.md" ]; then cp "$work/results/graphs.md" "$OUT/"; fi
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack [DATASET ...] | run [reproduce graphs options ...]" >&2; exit 2 ;;
esac
