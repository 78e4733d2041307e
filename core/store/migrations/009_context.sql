-- 009: a pair's patient context (issue 33): age, sex, indication and comparison/history, free text
-- each (stripped by the importer), NULL when unknown. core/taxonomy.py CONTEXT_FIELDS names them;
-- core/ingest/importers/pairs.py writes them (import-pairs --context-cols); the Data, Annotate and
-- Live scoring pages and the report's excerpts show them; context-aware prompts read them. A store
-- from before this migration gains the four columns empty. trash_pairs keeps the same columns as pairs.
ALTER TABLE pairs ADD COLUMN age VARCHAR;
ALTER TABLE pairs ADD COLUMN sex VARCHAR;
ALTER TABLE pairs ADD COLUMN indication VARCHAR;
ALTER TABLE pairs ADD COLUMN history VARCHAR;
ALTER TABLE trash_pairs ADD COLUMN age VARCHAR;
ALTER TABLE trash_pairs ADD COLUMN sex VARCHAR;
ALTER TABLE trash_pairs ADD COLUMN indication VARCHAR;
ALTER TABLE trash_pairs ADD COLUMN history VARCHAR;
