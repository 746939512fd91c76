"""Array ops: shapes, layout (transpose, pack), slicing, indexing (strided slices, gathers)
and reversal."""
