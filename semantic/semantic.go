// Package semantic gives concepts meaning-based neighbours: it embeds every
// concept's text (label, aliases, description) with the configured
// Embedder, caches the vectors in the index keyed by model and text hash,
// keeps an exact in-memory vector index in step with the registry, and
// answers find_similar_concepts with cosine similarity weighted by recency
// decay (docs/decisions.md, "Embeddings and decay").
//
// Embedding never runs inside a database write transaction: texts are
// embedded first, then stored in short transactions. When the backend is
// unreachable, fuzzy and full-text features keep working and
// find_similar_concepts answers unavailable with the reason.
package semantic

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/semantic/chunk"
	"github.com/noema-mem/noema/vector"
)

// Service embeds concepts and finds similar ones.
type Service struct {
	DB       noema.SemanticIndex
	Embedder noema.Embedder
	Decay    decay.Config
	Logger   *slog.Logger
	Now      func() time.Time
	// Chunking is how notes are cut for embedding; the zero Scheme is
	// the embedder's own (chunk.For its kind). The search service must
	// be given the same.
	Chunking chunk.Scheme

	refresh sync.Mutex // one refresh at a time

	mu      sync.RWMutex
	idx     *vector.Index
	version string           // concepts version the index reflects
	model   string           // embedder name the index was built with
	rows    map[string]int64 // concept id -> vector id
	// byVID[vid] is the concept of vector id vid and its text's hash
	// (zero when vid is free): a slice, not two maps of a million entries
	// (issue 21).
	byVID []vidEntry
	// novec are the concepts whose text's cached vector is degenerate (no
	// row in the index), by the hash of that text.
	novec    map[string]textKey
	nextID   int64
	progress Progress
	// gen counts changes to the index; vecs caches ConceptVectors' copy
	// of generation vecsGen.
	gen     int64
	vecs    map[string][]float32
	vecsGen int64
	// counted is the chunks version (and model) progress's chunk counts
	// were taken at; Status counts again only when it moved.
	counted      int64
	countedModel string
	// rev and deleted are the concept names revision and deletion count
	// the index reflects in full (complete: no concept was left without
	// a vector for want of the backend); the next refresh reads only the
	// concepts changed since, unless one was deleted.
	rev, deleted int64
	complete     bool
	// fresh bounds concepts' decay for find_similar_concepts (fresh.go).
	fresh freshness
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
func New(db noema.SemanticIndex, e noema.Embedder, d decay.Config, logger *slog.Logger) *Service {
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
	version, err := s.DB.ConceptsVersion(ctx)
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
	s.mu.RLock()
	since, seenDeleted := s.rev, s.deleted
	partial := s.idx != nil && s.model == model && s.complete
	s.mu.RUnlock()
	if !partial {
		since = 0
	}
	rows, at, deleted, err := s.loadConcepts(ctx, since)
	if err != nil {
		return err
	}
	if partial && deleted != seenDeleted {
		// A concept was deleted: only the whole registry tells which.
		partial = false
		if rows, at, deleted, err = s.loadConcepts(ctx, 0); err != nil {
			return err
		}
	}
	// Only texts the in-memory index does not hold yet can lack a vector:
	// look those up, not the whole cache.
	s.mu.RLock()
	var unknown []conceptRow
	if s.model != model || len(s.rows)+len(s.novec) == 0 {
		unknown = rows // a first refresh: every row (not a copy of a million)
	} else {
		for _, r := range rows {
			if !s.known(r.id, r.hash) {
				unknown = append(unknown, r)
			}
		}
	}
	s.mu.RUnlock()
	hashes := make([]string, len(unknown))
	for i, r := range unknown {
		hashes[i] = r.hash
	}
	cached, err := s.DB.EmbeddedAmong(ctx, model, hashes)
	if err != nil {
		return err
	}
	var missing []conceptRow
	seen := map[string]bool{}
	for _, r := range unknown {
		if !cached[r.hash] && !seen[r.hash] {
			seen[r.hash] = true
			missing = append(missing, r)
		}
	}
	s.setProgress(func(p *Progress) {
		p.Running, p.Done, p.Total, p.LastError = len(missing) > 0, 0, len(missing), ""
	})
	embedErr := s.embedMissing(ctx, model, missing)
	if embedErr != nil {
		s.setProgress(func(p *Progress) { p.Running, p.LastError = false, noema.ErrorMessage(embedErr) })
		s.saveState(ctx) // status, in any process, shows the error
		if noema.ErrorCode(embedErr) != noema.EUNAVAILABLE {
			return embedErr
		}
		// The backend is down: serve what is cached, and try again on the
		// next refresh (the version is not recorded as done).
		version = ""
	}
	if err := s.rebuild(ctx, model, version, rows, partial); err != nil {
		return err
	}
	s.mu.Lock()
	s.rev, s.deleted, s.complete = at, deleted, embedErr == nil
	s.mu.Unlock()
	if embedErr != nil {
		return embedErr
	}
	s.setProgress(func(p *Progress) { p.Running = false })
	s.saveState(ctx)
	return nil
}

// Embed caches a vector, for the current model, of every concept's text
// that has none. A process that holds the in-memory index (a server)
// refreshes it as Refresh does. One that holds none yet (`noema sync
// --embed`, which exits next) only fills the cache and never builds the
// index: at a million concepts that is 1.2 GB it would drop on exit
// (issue 21: the command's peak ≤ 2 GB). Its progress counts the concepts
// with a cached vector.
func (s *Service) Embed(ctx context.Context) error {
	s.mu.RLock()
	loaded := s.idx != nil
	s.mu.RUnlock()
	if loaded {
		return s.Refresh(ctx)
	}
	s.refresh.Lock()
	defer s.refresh.Unlock()
	model := s.Embedder.Name()
	rows, _, _, err := s.loadConcepts(ctx, 0)
	if err != nil {
		return err
	}
	hashes := make([]string, len(rows))
	for i, r := range rows {
		hashes[i] = r.hash
	}
	cached, err := s.DB.EmbeddedAmong(ctx, model, hashes)
	if err != nil {
		return err
	}
	hashes = nil
	var missing []conceptRow
	total := len(rows)
	for _, r := range rows {
		if cached[r.hash] {
			continue
		}
		missing = append(missing, r)
		cached[r.hash] = true // once a text
	}
	rows = nil
	s.setProgress(func(p *Progress) {
		p.Running, p.Done, p.Total, p.LastError = len(missing) > 0, 0, len(missing), ""
		p.Concepts = total
	})
	if err := s.embedMissing(ctx, model, missing); err != nil {
		s.setProgress(func(p *Progress) { p.Running, p.LastError = false, noema.ErrorMessage(err) })
		s.saveState(ctx)
		return err
	}
	s.setProgress(func(p *Progress) { p.Running, p.Embedded = false, p.Concepts })
	s.saveState(ctx)
	return nil
}

// loadConcepts reads the concepts changed after the names revision since
// (every concept for 0).
func (s *Service) loadConcepts(ctx context.Context, since int64) (rows []conceptRow, at, deleted int64, err error) {
	at, deleted, err = s.DB.EachConceptSince(ctx, since, func(id, label string, aliases []string, desc string) {
		text := ConceptText(label, aliases, desc)
		rows = append(rows, conceptRow{id: id, text: text, hash: TextHash(text)})
	})
	return rows, at, deleted, err
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
		hashes := make([]string, len(batch))
		for j, r := range batch {
			hashes[j] = r.hash
		}
		err = s.DB.PutEmbeddings(ctx, model, dim, hashes, vecs)
		if err != nil {
			return err
		}
		s.setProgress(func(p *Progress) { p.Done += len(batch) })
	}
	return nil
}

// rebuild updates the in-memory index to hold exactly rows' vectors, or
// with partial, to hold rows' vectors beside those it has.
func (s *Service) rebuild(ctx context.Context, model, version string, rows []conceptRow, partial bool) error {
	s.mu.RLock()
	reuse := s.idx != nil && s.model == model
	s.mu.RUnlock()
	if !reuse {
		return s.build(ctx, model, version, rows)
	}
	// Which concepts need a (new) vector?
	want := map[string]bool{}
	var load []conceptRow
	s.mu.RLock()
	for _, r := range rows {
		want[r.id] = true
		if !s.known(r.id, r.hash) {
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
	added := 0 // concepts new to the index's knowledge
	if partial {
		for _, r := range rows {
			_, hasRow := s.rows[r.id]
			_, hasText := s.novec[r.id]
			if !hasRow && !hasText {
				added++
			}
		}
	}
	if !partial {
		for id, vid := range s.rows {
			if !want[id] {
				s.idx.Delete(vid)
				delete(s.rows, id)
				s.byVID[vid] = vidEntry{}
			}
		}
		for id := range s.novec {
			if !want[id] {
				delete(s.novec, id)
			}
		}
	}
	for _, r := range load {
		v, ok := vecs[r.hash]
		if !ok {
			continue
		}
		if err := setVector(s.idx, s.rows, &s.byVID, &s.nextID, r, v); err != nil {
			return err
		}
		if vid, ok := s.rows[r.id]; ok {
			s.byVID[vid].hash = keyOf(r.hash)
			delete(s.novec, r.id)
		} else {
			s.novec[r.id] = keyOf(r.hash)
		}
	}
	s.version, s.model = version, model
	s.gen++
	if partial {
		s.progress.Concepts += added
	} else {
		s.progress.Concepts = len(rows)
	}
	s.progress.Embedded = s.idx.Len()
	return nil
}

// setVector stores concept r's vector v in idx under its vector id in
// rows (the next after *nextID when it has none, recorded in byVID); a
// degenerate vector (a concept whose text has nothing to embed) stays out.
// The caller holds s.mu when idx is the service's.
func setVector(idx *vector.Index, rows map[string]int64, byVID *[]vidEntry, nextID *int64, r conceptRow, v []float32) error {
	if len(v) != idx.Dim() {
		return noema.Errorf(noema.EINTERNAL, "cached vector of %d dimensions in a %d-dimensional index", len(v), idx.Dim())
	}
	vid, ok := rows[r.id]
	if !ok {
		*nextID++
		vid = *nextID
		for int64(len(*byVID)) <= vid {
			*byVID = append(*byVID, vidEntry{})
		}
		rows[r.id] = vid
		(*byVID)[vid].id = r.id
	}
	if err := idx.Set(vid, v); err != nil {
		idx.Delete(vid)
		delete(rows, r.id)
		(*byVID)[vid] = vidEntry{}
	}
	return nil
}

// vidEntry is what the service knows of a vector id: its concept and the
// hash of the text its vector was embedded from.
type vidEntry struct {
	id   string
	hash textKey
}

// textKey is a text hash (TextHash: 32 hex digits) as its 16 bytes.
type textKey [16]byte

// keyOf returns the key of the text hash h; a hash that is not TextHash's
// form (none is) gets the first 16 bytes of its SHA-256.
func keyOf(h string) textKey {
	var k textKey
	if n, err := hex.Decode(k[:], []byte(h)); err == nil && n == len(k) && len(h) == 2*len(k) {
		return k
	}
	sum := sha256.Sum256([]byte(h))
	copy(k[:], sum[:16])
	return k
}

// String returns the text hash of k (TextHash's form).
func (k textKey) String() string { return hex.EncodeToString(k[:]) }

// known reports whether the service holds concept id's vector (or knows
// it degenerate) for the text hash h. The caller holds s.mu.
func (s *Service) known(id, h string) bool {
	if vid, ok := s.rows[id]; ok {
		return s.byVID[vid].hash == keyOf(h)
	}
	k, ok := s.novec[id]
	return ok && k == keyOf(h)
}

// conceptOf returns the concept of vector id vid ("" when none). The
// caller holds s.mu.
func (s *Service) conceptOf(vid int64) string {
	if vid < 0 || vid >= int64(len(s.byVID)) {
		return ""
	}
	return s.byVID[vid].id
}

// build replaces the in-memory index with one of rows' vectors (of
// model), streamed from the cache into a new index the service does not
// share until it is complete: the vectors are held once, as the index
// stores them, never all as float32 beside it (issue 21: 1.5 GB more at
// a million concepts).
func (s *Service) build(ctx context.Context, model, version string, rows []conceptRow) error {
	byHash := slices.Clone(rows)
	slices.SortFunc(byHash, func(a, b conceptRow) int { return cmp.Compare(a.hash, b.hash) })
	hashes := make([]string, 0, len(byHash))
	for i, r := range byHash {
		if i == 0 || r.hash != byHash[i-1].hash {
			hashes = append(hashes, r.hash)
		}
	}
	var (
		idx    *vector.Index
		ids    = make(map[string]int64, len(rows))
		byVID  = make([]vidEntry, len(rows)+1)
		found  = make([]bool, len(rows)+1) // vector ids whose vector was found
		novec  = map[string]textKey{}
		nextID = int64(len(rows))
	)
	// Vector ids follow rows' order, as a rebuild from scratch numbers
	// them (ties in a search break by id).
	for i, r := range rows {
		ids[r.id], byVID[i+1].id = int64(i+1), r.id
	}
	err := s.DB.EachEmbedding(ctx, model, hashes, func(h string, v []float32) error {
		if idx == nil {
			idx = vector.NewCodes(len(v))
			idx.Grow(len(rows))
		}
		i, _ := slices.BinarySearchFunc(byHash, h, func(r conceptRow, h string) int { return cmp.Compare(r.hash, h) })
		for ; i < len(byHash) && byHash[i].hash == h; i++ {
			r := byHash[i]
			vid := ids[r.id]
			if err := setVector(idx, ids, &byVID, &nextID, r, v); err != nil {
				return err
			}
			if _, ok := ids[r.id]; ok {
				byVID[vid].hash, found[vid] = keyOf(h), true
			} else {
				novec[r.id] = keyOf(h)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, vid := range ids {
		if !found[vid] {
			delete(ids, id)
			byVID[vid] = vidEntry{}
		}
	}
	if idx == nil {
		idx = vector.NewCodes(max(1, s.Embedder.Dimension()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idx, s.rows, s.byVID, s.novec, s.nextID = idx, ids, byVID, novec, nextID
	s.version, s.model = version, model
	s.gen++
	s.progress.Concepts = len(rows)
	s.progress.Embedded = idx.Len()
	return nil
}

// rowsOf reads the exact vectors of the index's rows, by vector id, from
// the embedding cache of model: the in-memory index keeps only their int8
// codes (vector.NewCodes; issue 21: 0.4 GB instead of 1.2 GB at a million
// concepts), and a search scores the few rows that can be among its best
// from these. The caller must not hold s.mu.
func (s *Service) rowsOf(ctx context.Context, model string) vector.RowSource {
	return func(vids []int64, fn func(id int64, v []float32)) error {
		byHash := make(map[string][]int64, len(vids))
		hashes := make([]string, 0, len(vids))
		s.mu.RLock()
		for _, vid := range vids {
			if s.conceptOf(vid) == "" {
				continue // deleted meanwhile
			}
			h := s.byVID[vid].hash.String()
			if _, seen := byHash[h]; !seen {
				hashes = append(hashes, h)
			}
			byHash[h] = append(byHash[h], vid)
		}
		s.mu.RUnlock()
		return s.DB.EachEmbedding(ctx, model, hashes, func(h string, v []float32) error {
			for _, vid := range byHash[h] {
				fn(vid, v)
			}
			return nil
		})
	}
}

// vectorOf returns concept id's vector (normalized) as the index holds it
// in full: from the embedding cache, the index keeping only codes.
func (s *Service) vectorOf(ctx context.Context, id string) ([]float32, error) {
	s.mu.RLock()
	idx, model := s.idx, s.model
	vid, ok := s.rows[id]
	s.mu.RUnlock()
	if !ok || idx == nil {
		return nil, nil
	}
	if v, ok := idx.Get(vid); ok {
		return v, nil
	}
	var out []float32
	err := s.rowsOf(ctx, model)([]int64{vid}, func(_ int64, v []float32) {
		out = slices.Clone(v)
		vector.Normalize(out)
	})
	return out, err
}

func (s *Service) loadVectors(ctx context.Context, model string, rows []conceptRow) (map[string][]float32, error) {
	hashes := make([]string, len(rows))
	for i, r := range rows {
		hashes[i] = r.hash
	}
	return s.DB.Embeddings(ctx, model, hashes)
}

// conceptDecay returns each concept's freshness: the maximum decay weight
// over the notes that mention it, its page included; 1 with none.
func (s *Service) conceptDecay(ctx context.Context, ids []string, now time.Time) (map[string]float64, error) {
	out := make(map[string]float64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := s.DB.ConceptNotes(ctx, ids, func(id, path string, modified, accessed time.Time) {
		// A weight that underflowed to 0 still counts: the concept has
		// notes, all very old (it once ranked as if it had none, decay 1).
		w := s.Decay.Weight(path, decay.Reference(modified, accessed), now)
		if old, ok := out[id]; !ok || w > old {
			out[id] = w
		}
	})
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = 1 // no notes: nothing says it is stale
		}
	}
	return out, nil
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
