-- 003: clinician ratings made in the dashboard (core/ratings.py, pages/annotate.py).
-- Append-only: a revision never overwrites an earlier one; the latest revision of a
-- (pair, rater) is the rating. The latest one is mirrored into `annotations` (annotator
-- 'rater:<name>', source 'radjudge-annotate') in the same transaction as the save.

-- A queue: which pairs of a dataset raters see, in which order, and how they were chosen.
CREATE TABLE rating_queues (
    queue_id    VARCHAR PRIMARY KEY,
    name        VARCHAR NOT NULL,
    dataset     VARCHAR NOT NULL,
    method      VARCHAR NOT NULL,           -- filters | sample | disagree
    params      VARCHAR NOT NULL,           -- JSON text: filters, n, seed, definition used
    scheme      VARCHAR NOT NULL,           -- score | counts | both: what a rater gives
    blinded     BOOLEAN NOT NULL DEFAULT TRUE,
    created_by  VARCHAR,
    created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE rating_queue_pairs (
    queue_id VARCHAR NOT NULL,
    position INTEGER NOT NULL,              -- 0-based order shown to raters
    pair_id  VARCHAR NOT NULL,
    PRIMARY KEY (queue_id, position)
);

CREATE TABLE ratings (
    pair_id      VARCHAR NOT NULL,
    rater        VARCHAR NOT NULL,
    revision     INTEGER NOT NULL,          -- 1, 2, ... per (pair, rater); the highest is current
    queue_id     VARCHAR,
    content_hash VARCHAR NOT NULL,          -- pairs.content_hash when the rating was given
    skipped      BOOLEAN NOT NULL DEFAULT FALSE,
    score        DOUBLE,                    -- overall 0-5, NULL when not given
    sig_a INTEGER, sig_b INTEGER, sig_c INTEGER, sig_d INTEGER, sig_e INTEGER, sig_f INTEGER,
    insig_a INTEGER, insig_b INTEGER, insig_c INTEGER, insig_d INTEGER, insig_e INTEGER, insig_f INTEGER,
    note         VARCHAR,
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (pair_id, rater, revision)
);

-- An adjudicated value of one field of one pair (score, sig_a, ...); latest revision wins.
CREATE TABLE adjudications (
    pair_id     VARCHAR NOT NULL,
    field       VARCHAR NOT NULL,
    revision    INTEGER NOT NULL,
    value       DOUBLE NOT NULL,
    adjudicator VARCHAR NOT NULL,
    note        VARCHAR,
    created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (pair_id, field, revision)
);

-- Their trash (core/datasets.py moves a deleted dataset's ratings and queues too).
CREATE TABLE trash_rating_queues AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM rating_queues LIMIT 0;
CREATE TABLE trash_rating_queue_pairs AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM rating_queue_pairs LIMIT 0;
CREATE TABLE trash_ratings AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM ratings LIMIT 0;
CREATE TABLE trash_adjudications AS SELECT CAST(NULL AS VARCHAR) AS batch_id, * FROM adjudications LIMIT 0;
ALTER TABLE trash_batches ADD COLUMN n_rating_queues BIGINT NOT NULL DEFAULT 0;
ALTER TABLE trash_batches ADD COLUMN n_rating_queue_pairs BIGINT NOT NULL DEFAULT 0;
ALTER TABLE trash_batches ADD COLUMN n_ratings BIGINT NOT NULL DEFAULT 0;
ALTER TABLE trash_batches ADD COLUMN n_adjudications BIGINT NOT NULL DEFAULT 0;
