"""Reading corpora: the four Text GCN benchmarks and users' CSV, TSV and JSONL files."""
