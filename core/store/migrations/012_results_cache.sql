-- 012: computed results kept in the store (issue 41): what a dashboard page computed from the store's
-- data (a correlation table with its CIs, a breakdown, a paired test), keyed like the judge cache by
-- what was asked (the reader and its arguments), the data it was computed from (data_version) and the
-- code that computed it (core.reads.results.code_version), so a revisit, a second tab, another user or
-- a restarted server reads it instead of computing it again. Written with its own counter,
-- cache_version, so keeping a result does not invalidate the caches keyed on data_version. Per
-- machine, like jobs: never merged; rows of an older data_version are pruned as new ones are kept.
CREATE TABLE results_cache (
    key          VARCHAR PRIMARY KEY,   -- sha256 of (reader, arguments, data_version, code version)
    reader       VARCHAR NOT NULL,      -- the function that computed it (for people reading the store)
    data_version BIGINT NOT NULL,
    payload      BLOB NOT NULL,         -- the result as Parquet (numbers bit for bit)
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp
);
INSERT OR IGNORE INTO store_meta VALUES ('cache_version', '0');
