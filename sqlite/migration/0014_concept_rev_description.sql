-- A concept's description is embedded with its names (semantic.ConceptText):
-- its change moves the names revision too, so that the embedding refresh
-- reads only the concepts changed since its last pass.
DROP TRIGGER concept_rev_upd;
CREATE TRIGGER concept_rev_upd AFTER UPDATE OF label, aliases, description ON concepts
	WHEN OLD.label IS NOT NEW.label OR OLD.aliases IS NOT NEW.aliases OR OLD.description IS NOT NEW.description BEGIN
	UPDATE concept_rev SET rev = rev + 1 WHERE id = 1;
	UPDATE concepts SET rev = (SELECT rev FROM concept_rev WHERE id = 1) WHERE id = NEW.id;
END;
