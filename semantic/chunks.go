package semantic

import (
	"context"

	"github.com/noema-mem/noema/semantic/chunk"
)

// chunkBatch is how many notes are chunked, embedded and stored together.
const chunkBatch = 200

type noteToChunk struct {
	id          int64
	title, hash string
}

// RefreshChunks embeds notes as heading-aware chunks (see chunk.Body): notes
// whose content changed since they were last chunked are cut again, and
// only chunks whose text has no cached vector for the current model are
// embedded — an edit re-embeds the chunks it touched, a model switch
// re-embeds everything. Embedding runs outside write transactions.
func (s *Service) RefreshChunks(ctx context.Context) error {
	s.refresh.Lock()
	defer s.refresh.Unlock()
	model := s.Embedder.Name()
	todo, err := s.notesToChunk(ctx, model)
	if err != nil {
		return err
	}
	if len(todo) == 0 {
		s.mu.RLock()
		counted := s.progress.Chunks > 0 || s.progress.ChunksEmbedded > 0
		s.mu.RUnlock()
		if counted {
			return nil // nothing changed since the last count: no work, no write
		}
	}
	s.setProgress(func(p *Progress) { p.Running, p.ChunkNotesPending, p.LastError = len(todo) > 0, len(todo), "" })
	defer s.setProgress(func(p *Progress) { p.Running = false })
	cached, err := s.cachedHashes(ctx, model)
	if err != nil {
		return err
	}
	for i := 0; i < len(todo); i += chunkBatch {
		batch := todo[i:min(i+chunkBatch, len(todo))]
		var work []chunk.Note
		var missing []conceptRow // reused shape: text + hash
		for _, n := range batch {
			body, ok, err := s.DB.NoteBody(ctx, n.id)
			if err != nil || !ok {
				continue // deleted meanwhile
			}
			nc := chunk.Note{ID: n.id, Hash: n.hash, Chunks: chunk.Body(body)}
			for _, c := range nc.Chunks {
				text := c.EmbedText(n.title)
				h := TextHash(text)
				nc.TextHashes = append(nc.TextHashes, h)
				if !cached[h] {
					cached[h] = true
					missing = append(missing, conceptRow{text: text, hash: h})
				}
			}
			work = append(work, nc)
		}
		if err := s.embedMissing(ctx, model, missing); err != nil {
			s.setProgress(func(p *Progress) { p.LastError = err.Error() })
			return err
		}
		err := s.DB.PutChunks(ctx, model, work)
		if err != nil {
			return err
		}
		s.setProgress(func(p *Progress) { p.ChunkNotesPending -= len(batch) })
	}
	if err := s.countChunks(ctx, model); err != nil {
		return err
	}
	s.saveState(ctx)
	return nil
}

// notesToChunk lists notes whose chunks are missing or stale, or were
// embedded by another model.
func (s *Service) notesToChunk(ctx context.Context, model string) ([]noteToChunk, error) {
	var out []noteToChunk
	err := s.DB.NotesToChunk(ctx, model, func(id int64, title, hash string) {
		out = append(out, noteToChunk{id: id, title: title, hash: hash})
	})
	return out, err
}

func (s *Service) countChunks(ctx context.Context, model string) error {
	total, embedded, err := s.DB.CountChunks(ctx, model)
	if err != nil {
		return err
	}
	s.setProgress(func(p *Progress) { p.Chunks, p.ChunksEmbedded = total, embedded })
	return nil
}
