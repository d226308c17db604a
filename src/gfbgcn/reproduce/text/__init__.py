"""The paper's text tables and the inductive table: grids and reports."""
