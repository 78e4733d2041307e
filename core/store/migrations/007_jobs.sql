-- 007: durable judge jobs (core/jobs). A job is one run request (one or several judges over the
-- same pairs) from the CLI or the dashboard, executed by a process that records itself here and
-- beats a heartbeat; job_leases claims the prompts (cache keys) a job is sending so that a second
-- job never sends the same prompt to the same model at the same time. Job progress is written
-- without bumping data_version (it has its own counter, job_version), so the dashboard's data
-- caches survive a running job.
CREATE TABLE jobs (
    job_id           VARCHAR PRIMARY KEY,
    label            VARCHAR NOT NULL,
    dataset          VARCHAR NOT NULL,
    spec             VARCHAR NOT NULL,          -- JSON (core.jobs.spec.JobSpec); never a key
    started_by       VARCHAR,
    origin           VARCHAR NOT NULL,          -- cli | dashboard
    state            VARCHAR NOT NULL,          -- queued | running | done | cancelled | failed | interrupted
    created_at       TIMESTAMP NOT NULL DEFAULT current_timestamp,
    started_at       TIMESTAMP,
    finished_at      TIMESTAMP,
    heartbeat_at     TIMESTAMP,
    pid              INTEGER,
    host             VARCHAR,
    proc_start       BIGINT,                    -- the process's start time (Linux clock ticks): pid reuse check
    attempts         INTEGER NOT NULL DEFAULT 0,
    n_done           BIGINT NOT NULL DEFAULT 0,
    n_total          BIGINT NOT NULL DEFAULT 0,
    n_ok             BIGINT NOT NULL DEFAULT 0,
    n_failed         BIGINT NOT NULL DEFAULT 0,
    n_sent           BIGINT NOT NULL DEFAULT 0,
    cost_usd         DOUBLE,                    -- NULL: a price is unknown
    task             VARCHAR,                   -- the judge running now
    message          VARCHAR,                   -- one line: why it failed, what was kept
    results          VARCHAR,                   -- JSON list, one summary per task
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE TABLE job_leases (
    cache_key  VARCHAR PRIMARY KEY,             -- the prompt to a model (core.judges.llm.cache_key)
    job_id     VARCHAR NOT NULL,
    pid        INTEGER,
    host       VARCHAR,
    proc_start BIGINT,
    expires_at TIMESTAMP NOT NULL
);
INSERT OR IGNORE INTO store_meta VALUES ('job_version', '0');
