-- The order of a note's links (the ordinal of each key and spelling's first
-- link), so co-occurrence can pair nearby links only (graph.CooccurrenceWindow)
-- and cost O(links), not O(links²). Existing rows have no order: forget
-- every note's file state so the next sync reads every note again.
ALTER TABLE links ADD COLUMN pos INTEGER NOT NULL DEFAULT 0;
UPDATE notes SET mtime_ns = 0, verified_ns = 0, hash = '';
