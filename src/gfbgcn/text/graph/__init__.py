"""The Text GCN corpus graph: counts, PMI and TF-IDF edges, the normalised adjacency, the cache."""
