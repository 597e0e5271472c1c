-- A counter that moves with every write transaction that changes a note's
-- full-text row (sqlite.Tx.textChanged), so search_notes can cache how many
-- notes hold each query term until the text changes.
ALTER TABLE search_state ADD COLUMN text_version INTEGER NOT NULL DEFAULT 0;
