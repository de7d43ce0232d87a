"""The ground floor: input checks, atomic file writes, torch's CPU thread count, and the one reader of environment
variables (``settings``). Imports nothing of the package."""
