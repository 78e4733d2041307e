-- 004: pairs.identical, the ReXVal*-style "identical pair" flag of a pair (docs/ARCHITECTURE.md):
-- reference and candidate equal once every run of whitespace (Python's str.isspace set) is one
-- space and the ends are trimmed; core/analysis.py same_text_sql() writes the expression below.
-- Computing it took a regex over every pair on each read of the Correlations page; now the importer
-- stores it when a pair is written, and readers fall back to the expression where it is NULL
-- (a row written by older code or a direct INSERT). trash_pairs keeps the same columns as pairs.
ALTER TABLE pairs ADD COLUMN identical BOOLEAN;
ALTER TABLE trash_pairs ADD COLUMN identical BOOLEAN;
UPDATE pairs SET identical = (trim(regexp_replace(coalesce(reference, ''), '[\x{0009}\x{000a}\x{000b}\x{000c}\x{000d}\x{001c}\x{001d}\x{001e}\x{001f}\x{0020}\x{0085}\x{00a0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+', ' ', 'g'), ' ') = trim(regexp_replace(coalesce(candidate, ''), '[\x{0009}\x{000a}\x{000b}\x{000c}\x{000d}\x{001c}\x{001d}\x{001e}\x{001f}\x{0020}\x{0085}\x{00a0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+', ' ', 'g'), ' '));
UPDATE trash_pairs SET identical = (trim(regexp_replace(coalesce(reference, ''), '[\x{0009}\x{000a}\x{000b}\x{000c}\x{000d}\x{001c}\x{001d}\x{001e}\x{001f}\x{0020}\x{0085}\x{00a0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+', ' ', 'g'), ' ') = trim(regexp_replace(coalesce(candidate, ''), '[\x{0009}\x{000a}\x{000b}\x{000c}\x{000d}\x{001c}\x{001d}\x{001e}\x{001f}\x{0020}\x{0085}\x{00a0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+', ' ', 'g'), ' '));
