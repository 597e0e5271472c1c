package semantic

import (
	"context"
	"fmt"

	"github.com/noema-mem/noema/semantic/chunk"
	"github.com/noema-mem/noema/sqlite"
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
		type noteChunks struct {
			n      noteToChunk
			chunks []chunk.Chunk
			hashes []string
		}
		var work []noteChunks
		var missing []conceptRow // reused shape: text + hash
		for _, n := range batch {
			var body string
			if err := s.DB.Read().QueryRowContext(ctx, `SELECT body FROM notes_fts WHERE rowid = ?`, n.id).Scan(&body); err != nil {
				continue // deleted meanwhile
			}
			nc := noteChunks{n: n, chunks: chunk.Body(body)}
			for _, c := range nc.chunks {
				text := c.EmbedText(n.title)
				h := TextHash(text)
				nc.hashes = append(nc.hashes, h)
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
		err := s.DB.Write(ctx, func(tx *sqlite.Tx) error {
			for _, w := range work {
				// Skip a note that changed again since it was read.
				var hash string
				if err := tx.QueryRow(`SELECT hash FROM notes WHERE id = ?`, w.n.id).Scan(&hash); err != nil || hash != w.n.hash {
					continue
				}
				if _, err := tx.Exec(`DELETE FROM note_chunks WHERE note_id = ?`, w.n.id); err != nil {
					return fmt.Errorf("clear chunks: %w", err)
				}
				for j, c := range w.chunks {
					if _, err := tx.Exec(`INSERT INTO note_chunks (note_id, idx, heading, start, end, text_hash) VALUES (?, ?, ?, ?, ?, ?)`,
						w.n.id, j, c.Heading, c.Start, c.End, w.hashes[j]); err != nil {
						return fmt.Errorf("store chunk: %w", err)
					}
				}
				if _, err := tx.Exec(`INSERT INTO note_chunk_state (note_id, chunked_hash, model) VALUES (?, ?, ?)
					ON CONFLICT(note_id) DO UPDATE SET chunked_hash = excluded.chunked_hash, model = excluded.model`,
					w.n.id, w.n.hash, model); err != nil {
					return fmt.Errorf("store chunk state: %w", err)
				}
			}
			return nil
		})
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
	q, err := s.DB.Read().QueryContext(ctx, `SELECT n.id, n.title, n.hash FROM notes n
		LEFT JOIN note_chunk_state st ON st.note_id = n.id
		WHERE st.chunked_hash IS NULL OR st.chunked_hash != n.hash OR st.model != ?
		ORDER BY n.id`, model)
	if err != nil {
		return nil, fmt.Errorf("find notes to chunk: %w", err)
	}
	defer q.Close()
	var out []noteToChunk
	for q.Next() {
		var n noteToChunk
		if err := q.Scan(&n.id, &n.title, &n.hash); err != nil {
			return nil, fmt.Errorf("find notes to chunk: %w", err)
		}
		out = append(out, n)
	}
	return out, q.Err()
}

func (s *Service) countChunks(ctx context.Context, model string) error {
	var total, embedded int
	err := s.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(e.text_hash) FROM note_chunks c
		LEFT JOIN embeddings e ON e.model = ? AND e.text_hash = c.text_hash`, model).Scan(&total, &embedded)
	if err != nil {
		return fmt.Errorf("count chunks: %w", err)
	}
	s.setProgress(func(p *Progress) { p.Chunks, p.ChunksEmbedded = total, embedded })
	return nil
}
