"""IR tools: Triton's IR dumps split per pass and read back, `ir diff`, `opt` replay, reproducers, lit tests."""
