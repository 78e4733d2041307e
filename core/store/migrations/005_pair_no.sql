-- 005: integer pair keys (docs/ARCHITECTURE.md, "Integer pair keys"). pairs.pair_no numbers every
-- pair once (never reused: new pairs take numbers above every live and trashed pair), and
-- metric_values.pair_no repeats its pair's number, so the Correlations page joins 2,000,000 values
-- to their pairs on an integer instead of decoding and hashing the 20-character pair_id of each.
-- Writers set both (core/importers.py, core/store.py insert_metric_values); readers fall back to
-- pair_id where metric_values.pair_no is NULL (a value whose pair was missing when it was written);
-- check-store reports a number that disagrees with its pair. Trash tables keep the same columns.
ALTER TABLE pairs ADD COLUMN pair_no BIGINT;
ALTER TABLE trash_pairs ADD COLUMN pair_no BIGINT;
ALTER TABLE metric_values ADD COLUMN pair_no BIGINT;
ALTER TABLE trash_metric_values ADD COLUMN pair_no BIGINT;
UPDATE pairs SET pair_no = n.no FROM (SELECT pair_id, row_number() OVER (ORDER BY pair_id) AS no FROM pairs) n WHERE pairs.pair_id = n.pair_id;
UPDATE trash_pairs SET pair_no = n.no FROM (SELECT batch_id, pair_id, (SELECT count(*) FROM pairs) + row_number() OVER (ORDER BY batch_id, pair_id) AS no FROM trash_pairs) n WHERE trash_pairs.batch_id = n.batch_id AND trash_pairs.pair_id = n.pair_id;
UPDATE metric_values SET pair_no = p.pair_no FROM pairs p WHERE p.pair_id = metric_values.pair_id;
UPDATE trash_metric_values SET pair_no = p.pair_no FROM trash_pairs p WHERE p.batch_id = trash_metric_values.batch_id AND p.pair_id = trash_metric_values.pair_id;
