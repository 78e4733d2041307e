"""The store: the DuckDB file, its migrations, integrity checks, exports, datasets in the trash."""
