"""Reading and choosing games.

PGN (plain and compressed), Parquet, large collections, filters, the held-out split, the bundled data.
"""
