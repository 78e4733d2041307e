-- 010: provider batches of `judge --batch` (issue 34, core/judges/batch.py). One row per uploaded
-- batch file: it is written right after the upload (before the batch is created at the provider) and
-- updated with the batch id as soon as the provider returns it, before any polling, so a restarted
-- process polls the recorded batches instead of sending their prompts again. custom_ids are the
-- prompts' cache keys (core.judges.llm.cache_key): a line's answer is stored under its key, exactly as
-- a direct call's. Like jobs and job_leases (007) this is bookkeeping: written with job_version, not
-- data_version; not moved to the trash with a dataset (a run's outputs are); exported and checked by
-- export-store / check-store with the other tables.
CREATE TABLE job_batches (
    input_file_id   VARCHAR PRIMARY KEY,       -- the uploaded JSONL's id at the provider
    run_id          VARCHAR NOT NULL,
    job_id          VARCHAR NOT NULL,          -- the job polling it now (job-..., or pid-N outside a job)
    endpoint        VARCHAR,                   -- the provider's API base without credentials; NULL: its default
    batch_id        VARCHAR,                   -- NULL until the provider has created the batch
    round           INTEGER NOT NULL,          -- 0: first submission; 1, 2, ...: failed lines sent again
    state           VARCHAR NOT NULL,          -- creating | validating | in_progress | finalizing | completed |
                                               -- expired | failed | cancelling | cancelled (the provider's words)
    n_requests      BIGINT NOT NULL,
    n_completed     BIGINT NOT NULL DEFAULT 0,
    n_failed        BIGINT NOT NULL DEFAULT 0,
    n_bytes         BIGINT NOT NULL,
    keys            VARCHAR[] NOT NULL,        -- the lines' custom_ids (cache keys)
    output_file_id  VARCHAR,
    error_file_id   VARCHAR,
    collected       BOOLEAN NOT NULL DEFAULT FALSE,  -- its results are stored (or recorded as failures)
    n_stored        BIGINT NOT NULL DEFAULT 0, -- answers taken from its output file
    message         VARCHAR,
    created_at      TIMESTAMP NOT NULL DEFAULT current_timestamp,
    updated_at      TIMESTAMP NOT NULL DEFAULT current_timestamp
);
