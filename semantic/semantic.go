// Package semantic gives concepts meaning-based neighbours: it embeds every
// concept's text (label, aliases, description) with the configured
// Embedder, caches the vectors in the index keyed by model and text hash,
// keeps an exact in-memory vector index in step with the registry, and
// answers find_similar_concepts with cosine similarity weighted by recency
// decay (seed document 002).
//
// Embedding never runs inside a database write transaction: texts are
// embedded first, then stored in short transactions. When the backend is
// unreachable, fuzzy and full-text features keep working and
// find_similar_concepts answers unavailable with the reason.
package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/embedding"
	"github.com/noema-mem/noema/sqlite"
	"github.com/noema-mem/noema/vector"
)

// Service embeds concepts and finds similar ones.
type Service struct {
	DB       *sqlite.DB
	Embedder embedding.Embedder
	Decay    decay.Config
	Logger   *slog.Logger
	Now      func() time.Time

	refresh sync.Mutex // one refresh at a time

	mu       sync.RWMutex
	idx      *vector.Index
	version  string           // concepts version the index reflects
	model    string           // embedder name the index was built with
	rows     map[string]int64 // concept id -> vector id
	conIDs   map[int64]string // vector id -> concept id
	hashes   map[string]string
	nextID   int64
	progress Progress
}

// Progress reports embedding work for status.
type Progress struct {
	Embedder  string `json:"embedder"`
	Dimension int    `json:"dimension"`
	Running   bool   `json:"running"`
	Done      int    `json:"done"`
	Total     int    `json:"total"`
	Embedded  int    `json:"embedded"` // concepts with a vector in the index
	Concepts  int    `json:"concepts"`
	// Chunks counts note chunks; ChunksEmbedded those with a vector for
	// the current model; ChunkNotesPending notes still to be (re)chunked.
	Chunks            int       `json:"chunks"`
	ChunksEmbedded    int       `json:"chunks_embedded"`
	ChunkNotesPending int       `json:"chunk_notes_pending"`
	LastError         string    `json:"last_error,omitempty"`
	UpdatedAt         time.Time `json:"updated_at,omitzero"`
}

// New returns a Service.
func New(db *sqlite.DB, e embedding.Embedder, d decay.Config, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{DB: db, Embedder: e, Decay: d, Logger: logger, Now: time.Now}
}

// Progress returns the state of embedding work.
func (s *Service) Progress() Progress {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p := s.progress
	p.Embedder = s.Embedder.Name()
	p.Dimension = s.Embedder.Dimension()
	return p
}

func (s *Service) setProgress(fn func(p *Progress)) {
	s.mu.Lock()
	fn(&s.progress)
	s.progress.UpdatedAt = time.Now().UTC()
	s.mu.Unlock()
}

// ConceptText is what a concept is embedded from: its label, aliases and
// description, one per line.
func ConceptText(label string, aliases []string, description string) string {
	parts := append([]string{label}, aliases...)
	if description != "" {
		parts = append(parts, description)
	}
	return strings.Join(parts, "\n")
}

// TextHash identifies a text in the embedding cache.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:16])
}

type conceptRow struct {
	id, hash, text string
}

// Refresh brings the in-memory index in step with the concept registry:
// concepts whose text has no cached vector for the current model are
// embedded (in batches, outside any write transaction) and stored; the
// index is updated incrementally. It is cheap when nothing changed.
func (s *Service) Refresh(ctx context.Context) error {
	s.refresh.Lock()
	defer s.refresh.Unlock()
	version, err := s.DB.GetMeta(ctx, sqlite.ConceptsVersionKey)
	if err != nil {
		return err
	}
	model := s.Embedder.Name()
	s.mu.RLock()
	fresh := s.idx != nil && s.version == version && s.model == model
	s.mu.RUnlock()
	if fresh {
		return nil
	}
	rows, err := s.loadConcepts(ctx)
	if err != nil {
		return err
	}
	cached, err := s.cachedHashes(ctx, model)
	if err != nil {
		return err
	}
	var missing []conceptRow
	seen := map[string]bool{}
	for _, r := range rows {
		if !cached[r.hash] && !seen[r.hash] {
			seen[r.hash] = true
			missing = append(missing, r)
		}
	}
	s.setProgress(func(p *Progress) {
		p.Running, p.Done, p.Total, p.Concepts, p.LastError = len(missing) > 0, 0, len(missing), len(rows), ""
	})
	embedErr := s.embedMissing(ctx, model, missing)
	if embedErr != nil {
		s.setProgress(func(p *Progress) { p.Running, p.LastError = false, noema.ErrorMessage(embedErr) })
		if noema.ErrorCode(embedErr) != noema.EUNAVAILABLE {
			return embedErr
		}
		// The backend is down: serve what is cached, and try again on the
		// next refresh (the version is not recorded as done).
		version = ""
	}
	if err := s.rebuild(ctx, model, version, rows); err != nil {
		return err
	}
	if embedErr != nil {
		return embedErr
	}
	s.setProgress(func(p *Progress) { p.Running = false })
	s.saveState(ctx)
	return nil
}

func (s *Service) loadConcepts(ctx context.Context) ([]conceptRow, error) {
	q, err := s.DB.Read().QueryContext(ctx, `SELECT id, label, aliases, description FROM concepts ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("load concepts: %w", err)
	}
	defer q.Close()
	var rows []conceptRow
	for q.Next() {
		var id, label, aliases, desc string
		if err := q.Scan(&id, &label, &aliases, &desc); err != nil {
			return nil, fmt.Errorf("load concepts: %w", err)
		}
		var al []string
		_ = json.Unmarshal([]byte(aliases), &al)
		text := ConceptText(label, al, desc)
		rows = append(rows, conceptRow{id: id, text: text, hash: TextHash(text)})
	}
	return rows, q.Err()
}

func (s *Service) cachedHashes(ctx context.Context, model string) (map[string]bool, error) {
	q, err := s.DB.Read().QueryContext(ctx, `SELECT text_hash FROM embeddings WHERE model = ?`, model)
	if err != nil {
		return nil, fmt.Errorf("list cached embeddings: %w", err)
	}
	defer q.Close()
	out := map[string]bool{}
	for q.Next() {
		var h string
		if err := q.Scan(&h); err != nil {
			return nil, fmt.Errorf("list cached embeddings: %w", err)
		}
		out[h] = true
	}
	return out, q.Err()
}

// embedBatch is how many texts are embedded and then stored together.
const embedBatch = 1000

func (s *Service) embedMissing(ctx context.Context, model string, missing []conceptRow) error {
	for i := 0; i < len(missing); i += embedBatch {
		batch := missing[i:min(i+embedBatch, len(missing))]
		texts := make([]string, len(batch))
		for j, r := range batch {
			texts[j] = r.text
		}
		vecs, err := s.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed concepts with %s: %w", model, err)
		}
		if len(vecs) != len(batch) {
			return noema.Errorf(noema.EUNAVAILABLE, "embedder %s returned %d vectors for %d texts", model, len(vecs), len(batch))
		}
		dim := s.Embedder.Dimension()
		for _, v := range vecs {
			if len(v) != dim || dim == 0 {
				return noema.Errorf(noema.EUNAVAILABLE, "embedder %s returned a %d-dimensional vector, want %d", model, len(v), dim)
			}
		}
		err = s.DB.Write(ctx, func(tx *sqlite.Tx) error {
			st, err := tx.PrepareContext(ctx, `INSERT INTO embeddings (model, text_hash, dim, vec) VALUES (?, ?, ?, ?)
				ON CONFLICT(model, text_hash) DO NOTHING`)
			if err != nil {
				return fmt.Errorf("store embeddings: %w", err)
			}
			defer st.Close()
			for j, v := range vecs {
				if _, err := st.ExecContext(ctx, model, batch[j].hash, dim, encode(v)); err != nil {
					return fmt.Errorf("store embedding: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		s.setProgress(func(p *Progress) { p.Done += len(batch) })
	}
	return nil
}

// rebuild updates the in-memory index to hold exactly rows' vectors.
func (s *Service) rebuild(ctx context.Context, model, version string, rows []conceptRow) error {
	s.mu.RLock()
	reuse := s.idx != nil && s.model == model
	s.mu.RUnlock()
	if !reuse {
		s.mu.Lock()
		s.idx, s.rows, s.conIDs, s.hashes, s.nextID = nil, map[string]int64{}, map[int64]string{}, map[string]string{}, 0
		s.mu.Unlock()
	}
	// Which concepts need a (new) vector?
	want := map[string]bool{}
	var load []conceptRow
	s.mu.RLock()
	for _, r := range rows {
		want[r.id] = true
		if s.hashes[r.id] != r.hash {
			load = append(load, r)
		}
	}
	s.mu.RUnlock()
	vecs, err := s.loadVectors(ctx, model, load)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, vid := range s.rows {
		if !want[id] {
			s.idx.Delete(vid)
			delete(s.rows, id)
			delete(s.conIDs, vid)
			delete(s.hashes, id)
		}
	}
	for _, r := range load {
		v, ok := vecs[r.hash]
		if !ok {
			continue
		}
		if s.idx == nil {
			s.idx = vector.New(len(v))
		}
		if len(v) != s.idx.Dim() {
			return noema.Errorf(noema.EINTERNAL, "cached vector of %d dimensions in a %d-dimensional index", len(v), s.idx.Dim())
		}
		vid, ok := s.rows[r.id]
		if !ok {
			s.nextID++
			vid = s.nextID
			s.rows[r.id], s.conIDs[vid] = vid, r.id
		}
		if err := s.idx.Set(vid, v); err != nil {
			// A degenerate vector (a concept whose text has nothing to
			// embed) stays out of the index.
			s.idx.Delete(vid)
			delete(s.rows, r.id)
			delete(s.conIDs, vid)
		}
		s.hashes[r.id] = r.hash
	}
	if s.idx == nil {
		s.idx = vector.New(max(1, s.Embedder.Dimension()))
	}
	s.version, s.model = version, model
	s.progress.Embedded, s.progress.Concepts = s.idx.Len(), len(rows)
	return nil
}

func (s *Service) loadVectors(ctx context.Context, model string, rows []conceptRow) (map[string][]float32, error) {
	out := make(map[string][]float32, len(rows))
	var stored int
	if len(rows) > 2000 {
		if err := s.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE model = ?`, model).Scan(&stored); err != nil {
			return nil, fmt.Errorf("count embeddings: %w", err)
		}
	}
	if len(rows) > 2000 && 2*len(rows) >= stored {
		// Most of the model's vectors are wanted (note chunks share the
		// table): one sequential scan beats thousands of lookups.
		want := make(map[string]bool, len(rows))
		for _, r := range rows {
			want[r.hash] = true
		}
		q, err := s.DB.Read().QueryContext(ctx, `SELECT text_hash, vec FROM embeddings WHERE model = ?`, model)
		if err != nil {
			return nil, fmt.Errorf("load embeddings: %w", err)
		}
		defer q.Close()
		for q.Next() {
			var h string
			var b []byte
			if err := q.Scan(&h, &b); err != nil {
				return nil, fmt.Errorf("load embeddings: %w", err)
			}
			if want[h] {
				out[h] = decode(b)
			}
		}
		return out, q.Err()
	}
	const chunk = 500
	for i := 0; i < len(rows); i += chunk {
		part := rows[i:min(i+chunk, len(rows))]
		args := []any{model}
		for _, r := range part {
			args = append(args, r.hash)
		}
		q, err := s.DB.Read().QueryContext(ctx, `SELECT text_hash, vec FROM embeddings WHERE model = ? AND text_hash IN (`+
			strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load embeddings: %w", err)
		}
		for q.Next() {
			var h string
			var b []byte
			if err := q.Scan(&h, &b); err != nil {
				q.Close()
				return nil, fmt.Errorf("load embeddings: %w", err)
			}
			out[h] = decode(b)
		}
		q.Close()
	}
	return out, nil
}

func encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decode(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// conceptDecay returns each concept's freshness: the maximum decay weight
// over the notes that mention it, its page included; 1 with none.
func (s *Service) conceptDecay(ctx context.Context, ids []string, now time.Time) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, 2*len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args = append(args, args...)
	q, err := s.DB.Read().QueryContext(ctx, `
		SELECT k.concept_id, n.path, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM concept_keys k JOIN links l ON l.key = k.key JOIN notes n ON n.id = l.note_id
		LEFT JOIN access a ON a.path = n.path
		WHERE k.concept_id IN (`+in+`)
		UNION ALL
		SELECT c.id, n.path, n.modified_ns, COALESCE(a.accessed_ns, 0)
		FROM concepts c JOIN notes n ON n.id = c.page_note_id LEFT JOIN access a ON a.path = n.path
		WHERE c.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("load concept freshness: %w", err)
	}
	defer q.Close()
	for q.Next() {
		var id, path string
		var mod, acc int64
		if err := q.Scan(&id, &path, &mod, &acc); err != nil {
			return nil, fmt.Errorf("load concept freshness: %w", err)
		}
		var accessed time.Time
		if acc != 0 {
			accessed = time.Unix(0, acc)
		}
		w := s.Decay.Weight(path, decay.Reference(time.Unix(0, mod), accessed), now)
		if w > out[id] {
			out[id] = w
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = 1 // no notes: nothing says it is stale
		}
	}
	return out, q.Err()
}

// sortHits orders by score desc, then similarity desc, then label, then id.
func sortHits(hs []Similar) {
	sort.SliceStable(hs, func(i, j int) bool {
		a, b := hs[i], hs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Similarity != b.Similarity {
			return a.Similarity > b.Similarity
		}
		if a.Label != b.Label {
			return a.Label < b.Label
		}
		return a.ID < b.ID
	})
}
