"""The graph-classification experiment of the paper (its bioinformatics and social data sets)
and its report."""
