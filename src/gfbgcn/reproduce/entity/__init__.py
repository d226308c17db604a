"""The entity-classification experiment of the paper (AIFB, MUTAG, BGS, AM) and its report."""
