"""How fast the engine is: the benchmark against a naive loop and vmap, and the floor of a stacked step."""
