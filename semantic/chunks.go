package semantic

import (
	"context"

	"github.com/noema-mem/noema"
)

// chunkBatch is how many notes are chunked, embedded and stored together.
const chunkBatch = 200

type noteToChunk struct {
	id          int64
	title, hash string
}

// RefreshChunks embeds notes as chunks cut by the service's Chunking, by
// default the embedder's scheme (chunk.For: heading-aware sections for a
// spelling model, line-aware passages for a meaning model): notes whose content changed since they
// were last chunked, or that were chunked for another model or scheme, are
// cut again, and only chunks whose text has no cached vector for the
// current model are embedded — an edit re-embeds the chunks it touched, a
// model switch re-embeds everything. Embedding runs outside write
// transactions.
func (s *Service) RefreshChunks(ctx context.Context) error {
	s.refresh.Lock()
	defer s.refresh.Unlock()
	model := s.Embedder.Name()
	scheme, key := s.Chunking.ForEmbedder(s.Embedder)
	todo, err := s.notesToChunk(ctx, key)
	if err != nil {
		return err
	}
	if len(todo) == 0 {
		s.mu.RLock()
		done := !s.progress.UpdatedAt.IsZero()
		s.mu.RUnlock()
		if done {
			return nil // nothing changed since the last refresh: no work, no write
		}
	}
	s.setProgress(func(p *Progress) { p.Running, p.ChunkNotesPending, p.LastError = len(todo) > 0, len(todo), "" })
	defer s.setProgress(func(p *Progress) { p.Running = false })
	for i := 0; i < len(todo); i += chunkBatch {
		batch := todo[i:min(i+chunkBatch, len(todo))]
		var work []noema.ChunkedNote
		var texts []conceptRow // reused shape: text + hash
		for _, n := range batch {
			body, ok, err := s.DB.NoteBody(ctx, n.id)
			if err != nil || !ok {
				continue // deleted meanwhile
			}
			nc := noema.ChunkedNote{ID: n.id, Hash: n.hash}
			for _, c := range scheme.Cut(body) {
				text := c.EmbedText(n.title)
				h := TextHash(text)
				nc.Chunks = append(nc.Chunks, noema.StoredChunk{Heading: c.Heading, Start: c.Start, End: c.End, TextHash: h})
				texts = append(texts, conceptRow{text: text, hash: h})
			}
			work = append(work, nc)
		}
		// Only this batch's texts are looked up in the cache (not every
		// hash it holds): the cost follows the chunks that changed.
		hashes := make([]string, len(texts))
		for j, t := range texts {
			hashes[j] = t.hash
		}
		cached, err := s.DB.EmbeddedAmong(ctx, model, hashes)
		if err != nil {
			return err
		}
		var missing []conceptRow
		for _, t := range texts {
			if !cached[t.hash] {
				cached[t.hash] = true
				missing = append(missing, t)
			}
		}
		if err := s.embedMissing(ctx, model, missing); err != nil {
			s.setProgress(func(p *Progress) { p.LastError = err.Error() })
			return err
		}
		if err := s.DB.PutChunks(ctx, key, work); err != nil {
			return err
		}
		s.setProgress(func(p *Progress) { p.ChunkNotesPending -= len(batch) })
	}
	s.saveState(ctx)
	return nil
}

// notesToChunk lists notes whose chunks are missing or stale, or were cut
// and embedded under another key (chunk.Scheme.Key: model and scheme).
func (s *Service) notesToChunk(ctx context.Context, key string) ([]noteToChunk, error) {
	var out []noteToChunk
	err := s.DB.NotesToChunk(ctx, key, func(id int64, title, hash string) {
		out = append(out, noteToChunk{id: id, title: title, hash: hash})
	})
	return out, err
}

// countChunks sets p's chunk counts. Counting is a pass over every chunk,
// so it is done when a status asks, and again only once the chunks have
// changed since (the chunks version moved) or the model did: a refresh
// after a write never counts.
func (s *Service) countChunks(ctx context.Context, p *Progress) error {
	version, err := s.DB.SearchChunksVersion(ctx)
	if err != nil {
		return err
	}
	model := s.Embedder.Name()
	s.mu.RLock()
	fresh := s.countedModel == model && s.counted == version
	total, embedded := s.progress.Chunks, s.progress.ChunksEmbedded
	s.mu.RUnlock()
	if !fresh {
		total, embedded, err = s.DB.CountChunks(ctx, model)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.progress.Chunks, s.progress.ChunksEmbedded = total, embedded
		s.counted, s.countedModel = version, model
		s.mu.Unlock()
	}
	p.Chunks, p.ChunksEmbedded = total, embedded
	return nil
}
