-- 011: a job's time left as its worker estimates it (issue 43): the rate of answers over a recent window
-- (core/jobs/eta.py), written with each heartbeat; NULL until enough answers have arrived to say, and
-- after the job ends. Bookkeeping like the rest of `jobs` (007): written with job_version.
ALTER TABLE jobs ADD COLUMN eta_seconds DOUBLE;
