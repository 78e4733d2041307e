-- 001: the tables of DESIGN.md. Forward-only: never edit a released migration, add a new file.
CREATE TABLE datasets (
    name        VARCHAR PRIMARY KEY,
    kind        VARCHAR NOT NULL,          -- score | error_counts | preference | edit_review
    source      VARCHAR,
    license     VARCHAR,
    synthetic   BOOLEAN NOT NULL DEFAULT FALSE,
    version     VARCHAR,
    description VARCHAR,
    created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);

CREATE TABLE pairs (
    pair_id   VARCHAR PRIMARY KEY,         -- stable hash of (dataset, ext_id)
    dataset   VARCHAR NOT NULL,
    ext_id    VARCHAR NOT NULL,
    reference VARCHAR NOT NULL,
    candidate VARCHAR NOT NULL,
    group_id  VARCHAR,                     -- study / reference id, for clustered statistics
    system    VARCHAR,                     -- which generator wrote the candidate
    modality  VARCHAR,
    anatomy   VARCHAR,
    split     VARCHAR,
    meta      VARCHAR,                     -- JSON text
    content_hash VARCHAR NOT NULL          -- hash of (reference, candidate): ratings record it
);
CREATE INDEX pairs_dataset ON pairs (dataset);

CREATE TABLE annotations (
    pair_id     VARCHAR NOT NULL,
    annotator   VARCHAR NOT NULL,
    field       VARCHAR NOT NULL,          -- score | error_count | preferred | ...
    category    VARCHAR,                   -- a-f or NULL
    significant BOOLEAN,                   -- NULL for non-count fields
    value       DOUBLE NOT NULL,
    scale_max   DOUBLE,                    -- for scores: the scale's maximum (0..scale_max)
    source      VARCHAR,                   -- file or tool that produced the row
    created_at  TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE INDEX annotations_pair ON annotations (pair_id);

CREATE TABLE judge_runs (
    run_id      VARCHAR PRIMARY KEY,
    judge_kind  VARCHAR NOT NULL,          -- llm | rules | lexical | imported | distilled
    judge_name  VARCHAR NOT NULL,
    model       VARCHAR,
    prompt_id   VARCHAR,
    prompt_hash VARCHAR,
    params      VARCHAR,                   -- JSON text: generation params, seeds, shots
    dataset     VARCHAR NOT NULL,
    status      VARCHAR NOT NULL,          -- running | done | cancelled | failed
    n_requested INTEGER NOT NULL DEFAULT 0,
    n_ok        INTEGER NOT NULL DEFAULT 0,
    n_failed    INTEGER NOT NULL DEFAULT 0,
    cost_usd    DOUBLE,
    started_at  TIMESTAMP NOT NULL DEFAULT current_timestamp,
    finished_at TIMESTAMP
);

CREATE TABLE judge_outputs (
    run_id       VARCHAR NOT NULL,
    pair_id      VARCHAR NOT NULL,
    cache_key    VARCHAR,
    raw_text     VARCHAR,
    parse_status VARCHAR,                  -- ok | partial | failed | NULL (call failed)
    parse_reason VARCHAR,
    latency_ms   DOUBLE,
    tokens_in    INTEGER,
    tokens_out   INTEGER,
    cost_usd     DOUBLE,
    error        VARCHAR,                  -- provider error; NULL when the call succeeded
    created_at   TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (run_id, pair_id)
);
CREATE INDEX judge_outputs_cache ON judge_outputs (cache_key);

CREATE TABLE judge_errors (
    run_id      VARCHAR NOT NULL,
    pair_id     VARCHAR NOT NULL,
    significant BOOLEAN,
    category    VARCHAR,
    text        VARCHAR
);

CREATE TABLE metric_values (
    run_id  VARCHAR NOT NULL,
    pair_id VARCHAR NOT NULL,
    metric  VARCHAR NOT NULL,
    value   DOUBLE,
    PRIMARY KEY (run_id, pair_id, metric)
);

CREATE TABLE store_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
INSERT INTO store_meta VALUES ('data_version', '0');
