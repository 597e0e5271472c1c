-- A log of the changes the in-memory mention graph follows (see
-- MentionGraph), so that a refresh after a write reads what the write
-- changed instead of every note row, the whole registry and every access:
-- a note inserted, updated (its links are re-derived only with a row
-- update) or deleted (kind 1, ref its row id); a concept inserted,
-- relabelled or deleted (2, its id); a concept key inserted, moved to
-- another concept or deleted (3, the key); an access recorded, moved or
-- dropped (4, the note path). A note's chunks stored under another
-- embedder (kind 1 again) make NotesToChunk look at it again. seq only grows: rows are removed from the
-- oldest end only, the newest 262,144 always kept; a reader that last read
-- an older position reads everything again.
CREATE TABLE graph_log (
	seq  INTEGER PRIMARY KEY,
	kind INTEGER NOT NULL,
	ref  ANY     NOT NULL
) STRICT;
CREATE TRIGGER graph_log_prune AFTER INSERT ON graph_log WHEN NEW.seq % 4096 = 0 BEGIN
	DELETE FROM graph_log WHERE seq <= NEW.seq - 262144;
END;
CREATE TRIGGER graph_log_note_ins AFTER INSERT ON notes BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (1, NEW.id);
END;
CREATE TRIGGER graph_log_note_upd AFTER UPDATE ON notes BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (1, NEW.id);
END;
CREATE TRIGGER graph_log_note_del AFTER DELETE ON notes BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (1, OLD.id);
END;
CREATE TRIGGER graph_log_concept_ins AFTER INSERT ON concepts BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (2, NEW.id);
END;
CREATE TRIGGER graph_log_concept_upd AFTER UPDATE OF id, label ON concepts
	WHEN OLD.id IS NOT NEW.id OR OLD.label IS NOT NEW.label BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (2, OLD.id), (2, NEW.id);
END;
CREATE TRIGGER graph_log_concept_del AFTER DELETE ON concepts BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (2, OLD.id);
END;
CREATE TRIGGER graph_log_key_ins AFTER INSERT ON concept_keys BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (3, NEW.key);
END;
CREATE TRIGGER graph_log_key_upd AFTER UPDATE OF key, concept_id ON concept_keys
	WHEN OLD.key IS NOT NEW.key OR OLD.concept_id IS NOT NEW.concept_id BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (3, OLD.key), (3, NEW.key);
END;
CREATE TRIGGER graph_log_key_del AFTER DELETE ON concept_keys BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (3, OLD.key);
END;
CREATE TRIGGER graph_log_access_ins AFTER INSERT ON access BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (4, NEW.path);
END;
CREATE TRIGGER graph_log_access_upd AFTER UPDATE ON access BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (4, OLD.path), (4, NEW.path);
END;
CREATE TRIGGER graph_log_access_del AFTER DELETE ON access BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (4, OLD.path);
END;
CREATE TRIGGER graph_log_chunk_model AFTER UPDATE OF model ON note_chunk_state
	WHEN OLD.model IS NOT NEW.model BEGIN
	INSERT INTO graph_log (kind, ref) VALUES (1, NEW.note_id);
END;
