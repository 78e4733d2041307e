-- 008: annotations.scale_min, the bottom of a rater's score scale (issue 30: a 1-5 Likert rating).
-- A score is still stored on a scale that starts at 0, as every reader assumes: value = the rater's
-- score minus scale_min, scale_max = the rater's maximum minus scale_min, so value / scale_max is the
-- normalised score the analyses need, unchanged. scale_min (NULL: 0) says what 0 stands for, so a
-- table shows the score on the rater's own scale as value + scale_min of scale_min..scale_max +
-- scale_min (core/ingest/importers/annotations.py writes it; core/reads/queries.py shows it).
-- trash_annotations keeps the same columns as annotations.
ALTER TABLE annotations ADD COLUMN scale_min DOUBLE;
ALTER TABLE trash_annotations ADD COLUMN scale_min DOUBLE;
