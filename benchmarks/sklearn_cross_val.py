"""The issue's acceptance snippet: 3-fold cross-validation of ``TextGCNClassifier`` on R8.

Runs the snippet as a user writes it (the R8 training documents through the public API,
``cross_val_score`` with the default settings but ``min_freq=5``) and prints the mean accuracy
and the wall time.  The test folds are classified inductively (they are not given to ``fit``).

    python benchmarks/sklearn_cross_val.py [--threads N] [--dataset r8] [--cv 3]
"""

from __future__ import annotations

import argparse
import time

import torch


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="r8")
    p.add_argument("--model", default="gfb-max")
    p.add_argument("--cv", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    start = time.perf_counter()

    from sklearn.model_selection import cross_val_score

    from gfbgcn import TextGCNClassifier, load_benchmark_texts_and_labels

    texts, labels = load_benchmark_texts_and_labels(args.dataset, subset="train")
    scores = cross_val_score(TextGCNClassifier(model=args.model, min_freq=5), texts, labels,
                             cv=args.cv)
    print(scores.mean())
    print(f"{args.dataset}: {len(texts)} training documents, {args.cv}-fold accuracies "
          f"{', '.join(f'{s:.4f}' for s in scores)}; {time.perf_counter() - start:.0f} s "
          f"wall ({torch.get_num_threads()} torch threads)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
