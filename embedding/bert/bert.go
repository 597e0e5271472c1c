// Package bert runs BERT-family sentence encoders (all-MiniLM-L6-v2,
// bge-small-en-v1.5 and other BertModel checkpoints) in pure Go, from a
// model folder in the Hugging Face layout:
//
//	config.json              the encoder's shape (model_type bert)
//	tokenizer.json           the WordPiece tokenizer (package tokenizer)
//	model.safetensors        the weights (F32, F16 or BF16)
//	modules.json             sentence-transformers modules (optional)
//	1_Pooling/config.json    the pooling: CLS token or mean of the tokens
//	sentence_bert_config.json max_seq_length (optional)
//
// Texts are tokenized, truncated at the model's maximum length (keeping
// [CLS] and [SEP]), sorted by length and batched; each batch runs the
// encoder (matrix products through package gemm, whose kernels are Go
// assembly on amd64 and arm64), then the pooling, then L2 normalisation.
// Batches run in parallel on all cores. No native library, no network.
package bert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/bert/tokenizer"
)

// Backend is the backend part of an embedder's name.
const Backend = "minilm"

// Pooling is how token vectors become one sentence vector.
type Pooling string

// Poolings.
const (
	PoolMean Pooling = "mean"
	PoolCLS  Pooling = "cls"
)

// Options configure [Load].
type Options struct {
	// Dir is the model folder.
	Dir string
	// Name is the model's name in the embedder's name ("minilm/NAME");
	// "" means the folder's base name.
	Name string
	// Pooling overrides the folder's pooling configuration; "" means the
	// folder's (1_Pooling/config.json), else mean.
	Pooling Pooling
	// MaxLength overrides the maximum number of tokens per text, [CLS] and
	// [SEP] included; 0 means sentence_bert_config.json's max_seq_length,
	// else 512, never more than the model's position embeddings.
	MaxLength int
	// Threads is the number of goroutines embedding runs on; 0 means
	// GOMAXPROCS.
	Threads int
	// BatchTokens bounds the tokens of one batch; 0 means 512.
	BatchTokens int
	// Dimensions, when positive, is the dimension the model must have.
	Dimensions int
}

// Embedder embeds texts with a BERT encoder. It is safe for concurrent use.
// The model is read on first use (or by [Load]); until then Embed retries
// loading at every call, so a model pulled while a server runs is picked
// up.
type Embedder struct {
	opts Options
	name string

	mu   sync.Mutex
	eng  *engine
	dim  atomic.Int64
	hint string // added to load errors: how to get the model

	loadErr   error  // the last failed load
	loadStamp string // folderStamp when it failed
}

var _ noema.Embedder = (*Embedder)(nil)

// folderStamp describes the model files' presence, sizes and times.
func folderStamp(dir string) string {
	var b strings.Builder
	for _, f := range []string{"config.json", "tokenizer.json", "model.safetensors", "modules.json", "sentence_bert_config.json", filepath.Join("1_Pooling", "config.json")} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			b.WriteString("-;")
			continue
		}
		fmt.Fprintf(&b, "%d@%d;", st.Size(), st.ModTime().UnixNano())
	}
	return b.String()
}

// engine is a loaded model.
type engine struct {
	tok     *tokenizer.Tokenizer
	m       *model
	pool    Pooling
	maxLen  int
	threads int
	batch   int
	scratch sync.Pool
}

// New returns an embedder that loads the model folder on first use.
func New(o Options) *Embedder {
	e := &Embedder{opts: o, name: o.Name}
	if e.name == "" {
		if abs, err := filepath.Abs(o.Dir); err == nil {
			e.name = filepath.Base(abs)
		} else {
			e.name = filepath.Base(o.Dir)
		}
	}
	if o.Dimensions > 0 {
		e.dim.Store(int64(o.Dimensions))
	} else if c, err := readConfig(filepath.Join(o.Dir, "config.json")); err == nil {
		e.dim.Store(int64(c.HiddenSize))
	}
	return e
}

// Load reads a model folder now. Errors name the missing or invalid file.
func Load(o Options) (*Embedder, error) {
	e := New(o)
	if _, err := e.engine(); err != nil {
		return nil, err
	}
	return e, nil
}

// engine returns the loaded model, loading it if needed.
func (e *Embedder) engine() (*engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eng != nil {
		return e.eng, nil
	}
	// A folder that failed to load is not read again until one of its
	// files changes (a server retries at every refresh).
	stamp := folderStamp(e.opts.Dir)
	if e.loadErr != nil && stamp == e.loadStamp {
		return nil, e.loadErr
	}
	eng, err := loadEngine(e.opts)
	if err == nil && e.opts.Dimensions > 0 && eng.m.cfg.HiddenSize != e.opts.Dimensions {
		err = fmt.Errorf("minilm: the model in %s has %d dimensions, the configuration says %d", e.opts.Dir, eng.m.cfg.HiddenSize, e.opts.Dimensions)
	}
	if err != nil {
		e.loadErr, e.loadStamp = err, stamp
		return nil, err
	}
	e.eng, e.loadErr = eng, nil
	e.dim.Store(int64(eng.m.cfg.HiddenSize))
	return eng, nil
}

func loadEngine(o Options) (*engine, error) {
	if o.Dir == "" {
		return nil, errors.New("minilm: no model folder")
	}
	st, err := os.Stat(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("minilm: model folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("minilm: %s is not a folder", o.Dir)
	}
	tok, err := tokenizer.Load(filepath.Join(o.Dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	m, err := loadModel(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	if tok.VocabSize() > m.cfg.VocabSize {
		return nil, fmt.Errorf("minilm: tokenizer has %d tokens, the model %d", tok.VocabSize(), m.cfg.VocabSize)
	}
	e := &engine{tok: tok, m: m, pool: o.Pooling, maxLen: o.MaxLength, threads: o.Threads, batch: o.BatchTokens}
	sc, err := readSentenceConfig(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	if e.pool == "" {
		e.pool = sc.pooling
	}
	if e.pool != PoolMean && e.pool != PoolCLS {
		return nil, fmt.Errorf("minilm: pooling %q is not supported (want mean or cls)", e.pool)
	}
	if e.maxLen <= 0 {
		e.maxLen = sc.maxLen
	}
	if e.maxLen <= 0 {
		e.maxLen = 512
	}
	e.maxLen = min(e.maxLen, m.cfg.MaxPositionEmbeddings)
	if e.maxLen < 2 {
		return nil, fmt.Errorf("minilm: maximum length %d is too small", e.maxLen)
	}
	if e.threads <= 0 {
		e.threads = runtime.GOMAXPROCS(0)
	}
	if e.batch <= 0 {
		e.batch = 512
	}
	e.scratch.New = func() any { return new(scratch) }
	return e, nil
}

type sentenceConfig struct {
	pooling Pooling
	maxLen  int
}

// readSentenceConfig reads the sentence-transformers files when present.
func readSentenceConfig(dir string) (sentenceConfig, error) {
	c := sentenceConfig{pooling: PoolMean}
	if b, err := os.ReadFile(filepath.Join(dir, "sentence_bert_config.json")); err == nil {
		var s struct {
			MaxSeqLength int `json:"max_seq_length"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return c, fmt.Errorf("sentence_bert_config.json: %w", err)
		}
		c.maxLen = s.MaxSeqLength
	}
	poolDir := "1_Pooling"
	if b, err := os.ReadFile(filepath.Join(dir, "modules.json")); err == nil {
		var mods []struct {
			Path string `json:"path"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &mods); err != nil {
			return c, fmt.Errorf("modules.json: %w", err)
		}
		for _, m := range mods {
			if m.Type == "sentence_transformers.models.Pooling" {
				poolDir = m.Path
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, poolDir, "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	var p struct {
		CLS      bool `json:"pooling_mode_cls_token"`
		Mean     bool `json:"pooling_mode_mean_tokens"`
		Max      bool `json:"pooling_mode_max_tokens"`
		MeanSqrt bool `json:"pooling_mode_mean_sqrt_len_tokens"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return c, fmt.Errorf("%s/config.json: %w", poolDir, err)
	}
	switch {
	case p.CLS && !p.Mean && !p.Max && !p.MeanSqrt:
		c.pooling = PoolCLS
	case p.Mean && !p.CLS && !p.Max && !p.MeanSqrt:
		c.pooling = PoolMean
	default:
		return c, fmt.Errorf("%s/config.json: only CLS or mean pooling alone is supported", poolDir)
	}
	return c, nil
}

// Name returns "minilm/NAME".
func (e *Embedder) Name() string { return Backend + "/" + e.name }

// Dimension returns the model's hidden size, 0 while the folder has no
// readable config.json.
func (e *Embedder) Dimension() int { return int(e.dim.Load()) }

// Loaded returns the loaded model's maximum tokens per text ([CLS] and
// [SEP] included), pooling and tokenizer; ok is false before the model is
// loaded.
func (e *Embedder) Loaded() (maxLen int, pool Pooling, tok *tokenizer.Tokenizer, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eng == nil {
		return 0, "", nil, false
	}
	return e.eng.maxLen, e.eng.pool, e.eng.tok, true
}

// MaxLength returns the maximum tokens per text, [CLS] and [SEP] included
// (0 before the model is loaded).
func (e *Embedder) MaxLength() int { n, _, _, _ := e.Loaded(); return n }

// Pooling returns the pooling in use ("" before the model is loaded).
func (e *Embedder) Pooling() Pooling { _, p, _, _ := e.Loaded(); return p }

// Tokenizer returns the model's tokenizer (nil before the model is loaded).
func (e *Embedder) Tokenizer() *tokenizer.Tokenizer { _, _, t, _ := e.Loaded(); return t }

// Embed returns one L2-normalised vector per text.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	eng, err := e.engine()
	if err != nil {
		return nil, e.unavailable(err)
	}
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = eng.tok.EncodeMax(t, eng.maxLen)
	}
	return eng.embedIDs(ctx, ids)
}

// EmbedIDs embeds token id sequences as they are ([CLS] … [SEP] included,
// at most the position embeddings long).
func (e *Embedder) EmbedIDs(ctx context.Context, ids [][]int32) ([][]float32, error) {
	eng, err := e.engine()
	if err != nil {
		return nil, e.unavailable(err)
	}
	return eng.embedIDs(ctx, ids)
}

// Ready loads the model now if it is not loaded yet. A model that is not
// on disk, or does not load, is noema.EUNAVAILABLE, saying how to get it.
func (e *Embedder) Ready() error {
	if _, err := e.engine(); err != nil {
		return e.unavailable(err)
	}
	return nil
}

// unavailable marks a model that cannot be loaded as noema.EUNAVAILABLE,
// so that callers degrade to fuzzy and full-text answers.
func (e *Embedder) unavailable(err error) error {
	if e.hint != "" {
		return noema.Errorf(noema.EUNAVAILABLE, "%v; %s", err, e.hint)
	}
	return noema.Errorf(noema.EUNAVAILABLE, "%v", err)
}

func (e *engine) embedIDs(ctx context.Context, ids [][]int32) ([][]float32, error) {
	for i, q := range ids {
		if len(q) == 0 || len(q) > e.m.cfg.MaxPositionEmbeddings {
			return nil, fmt.Errorf("minilm: sequence %d has %d tokens (want 1 to %d)", i, len(q), e.m.cfg.MaxPositionEmbeddings)
		}
		for _, id := range q {
			if id < 0 || int(id) >= e.m.cfg.VocabSize {
				return nil, fmt.Errorf("minilm: sequence %d: token id %d outside the vocabulary", i, id)
			}
		}
	}
	// Longest first, so batches hold sequences of similar length.
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ids[order[a]]) > len(ids[order[b]]) })
	var batches [][]int
	for i := 0; i < len(order); {
		j, tokens := i, 0
		for j < len(order) && (j == i || tokens+len(ids[order[j]]) <= e.batch) {
			tokens += len(ids[order[j]])
			j++
		}
		batches = append(batches, order[i:j])
		i = j
	}

	out := make([][]float32, len(ids))
	dim := e.m.cfg.HiddenSize
	flat := make([]float32, len(ids)*dim)
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	run := func(batch []int, workers int) {
		s := e.scratch.Get().(*scratch)
		defer e.scratch.Put(s)
		seqs := make([][]int32, len(batch))
		for i, k := range batch {
			seqs[i] = ids[k]
		}
		hidden := e.m.forward(seqs, s, workers)
		row := 0
		for i, k := range batch {
			e.pool1(out[k], hidden[row*dim:], len(seqs[i]))
			row += len(seqs[i])
		}
	}
	if len(batches) == 1 || e.threads == 1 {
		for _, b := range batches {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			run(b, e.threads)
		}
		return out, nil
	}
	var (
		wg   sync.WaitGroup
		next = make(chan []int)
	)
	for w := 0; w < min(e.threads, len(batches)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				run(b, 1)
			}
		}()
	}
	var err error
	for _, b := range batches {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- b
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pool1 writes the pooled, normalised vector of one sequence's hidden
// states (n rows) into dst.
func (e *engine) pool1(dst, hidden []float32, n int) {
	dim := len(dst)
	switch e.pool {
	case PoolCLS:
		copy(dst, hidden[:dim])
	default:
		acc := make([]float64, dim)
		for r := 0; r < n; r++ {
			row := hidden[r*dim : (r+1)*dim]
			for i, v := range row {
				acc[i] += float64(v)
			}
		}
		for i := range dst {
			dst[i] = float32(acc[i] / float64(n))
		}
	}
	var ss float64
	for _, v := range dst {
		ss += float64(v) * float64(v)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, v := range dst {
		dst[i] = float32(float64(v) * inv)
	}
}
