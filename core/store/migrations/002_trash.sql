-- 002: a trash for deleted datasets (core/datasets.py), so a deletion can be undone.
-- Each trash_X table has a batch_id column followed by exactly the columns of X,
-- copied from X's definition (CREATE ... AS ... LIMIT 0: same names and types, no
-- constraints, since one pair id may sit in several batches). A later migration
-- that adds a column to X must add it to trash_X as well; tests/test_datasets.py
-- checks that the two stay in step.
CREATE TABLE trash_datasets AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM datasets LIMIT 0;
CREATE TABLE trash_pairs AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM pairs LIMIT 0;
CREATE TABLE trash_annotations AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM annotations LIMIT 0;
CREATE TABLE trash_judge_runs AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM judge_runs LIMIT 0;
CREATE TABLE trash_judge_outputs AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM judge_outputs LIMIT 0;
CREATE TABLE trash_judge_errors AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM judge_errors LIMIT 0;
CREATE TABLE trash_metric_values AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM metric_values LIMIT 0;

CREATE TABLE trash_batches (
    batch_id          VARCHAR PRIMARY KEY,
    dataset           VARCHAR NOT NULL,       -- the deleted dataset's name
    deleted_at        TIMESTAMP NOT NULL DEFAULT current_timestamp,
    n_datasets        BIGINT NOT NULL,        -- rows moved from each table
    n_pairs           BIGINT NOT NULL,
    n_annotations     BIGINT NOT NULL,
    n_judge_runs      BIGINT NOT NULL,
    n_judge_outputs   BIGINT NOT NULL,
    n_judge_errors    BIGINT NOT NULL,
    n_metric_values   BIGINT NOT NULL
);
