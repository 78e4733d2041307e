-- 006: pairwise expert preferences (GREEN Sec. 3.4.2): for two candidates of one case, which one
-- an expert preferred (or none) and how confident they were (1-10). core/preferences_store.py
-- imports them; core/preference.py scores judges against them.
CREATE TABLE preferences (
    comparison_id VARCHAR NOT NULL,           -- unique within the dataset (the file's id, or a stable hash)
    dataset       VARCHAR NOT NULL,
    pair_id_a     VARCHAR NOT NULL,
    pair_id_b     VARCHAR NOT NULL,
    preferred     VARCHAR,                    -- 'a' | 'b' | NULL (no preference)
    confidence    DOUBLE,                     -- 1-10, NULL when not given
    annotator     VARCHAR NOT NULL DEFAULT 'expert',
    source        VARCHAR,
    created_at    TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (dataset, comparison_id)
);
CREATE TABLE trash_preferences AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM preferences LIMIT 0;
ALTER TABLE trash_batches ADD COLUMN n_preferences BIGINT NOT NULL DEFAULT 0;
