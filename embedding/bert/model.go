package bert

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/noema-mem/noema/embedding/bert/gemm"
	"github.com/noema-mem/noema/embedding/bert/safetensors"
)

// Config is the part of a Hugging Face config.json a BERT encoder needs.
type Config struct {
	ModelType             string  `json:"model_type"`
	VocabSize             int     `json:"vocab_size"`
	HiddenSize            int     `json:"hidden_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads"`
	IntermediateSize      int     `json:"intermediate_size"`
	HiddenAct             string  `json:"hidden_act"`
	MaxPositionEmbeddings int     `json:"max_position_embeddings"`
	TypeVocabSize         int     `json:"type_vocab_size"`
	LayerNormEps          float64 `json:"layer_norm_eps"`
}

func readConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.ModelType != "" && c.ModelType != "bert" {
		return c, fmt.Errorf("%s: model_type %q is not supported (want bert)", path, c.ModelType)
	}
	if c.HiddenSize <= 0 || c.NumHiddenLayers <= 0 || c.NumAttentionHeads <= 0 || c.IntermediateSize <= 0 || c.MaxPositionEmbeddings <= 0 || c.VocabSize <= 0 {
		return c, fmt.Errorf("%s: hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, max_position_embeddings and vocab_size must be positive", path)
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return c, fmt.Errorf("%s: hidden_size %d is not a multiple of num_attention_heads %d", path, c.HiddenSize, c.NumAttentionHeads)
	}
	switch c.HiddenAct {
	case "", "gelu", "gelu_new", "gelu_pytorch_tanh":
	default:
		return c, fmt.Errorf("%s: hidden_act %q is not supported (want gelu)", path, c.HiddenAct)
	}
	if c.LayerNormEps == 0 {
		c.LayerNormEps = 1e-12
	}
	if c.TypeVocabSize == 0 {
		c.TypeVocabSize = 2
	}
	return c, nil
}

type linear struct {
	w    *gemm.Packed
	bias []float32
}

type layer struct {
	qkv        linear // the query, key and value projections side by side
	attnOut    linear
	ln1g, ln1b []float32
	inter, out linear
	ln2g, ln2b []float32
}

// model holds a BERT encoder's weights, ready for inference.
type model struct {
	cfg      Config
	wordEmb  []float32 // vocab × hidden
	posEmb   []float32 // positions × hidden
	typeEmb0 []float32 // token type 0
	embLNg   []float32
	embLNb   []float32
	layers   []layer
}

// loadModel reads config.json and model.safetensors from dir.
func loadModel(dir string) (*model, error) {
	cfg, err := readConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	sf, err := safetensors.Open(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	// Checkpoints of BertModel name tensors "embeddings…", of task models
	// "bert.embeddings…".
	prefix := ""
	if sf.Tensor("embeddings.word_embeddings.weight") == nil && sf.Tensor("bert.embeddings.word_embeddings.weight") != nil {
		prefix = "bert."
	}
	h, inter := cfg.HiddenSize, cfg.IntermediateSize
	t := &tensors{sf: sf, prefix: prefix}
	m := &model{cfg: cfg}
	m.wordEmb = t.get("embeddings.word_embeddings.weight", cfg.VocabSize, h)
	m.posEmb = t.get("embeddings.position_embeddings.weight", cfg.MaxPositionEmbeddings, h)
	typ := t.get("embeddings.token_type_embeddings.weight", -1, h)
	m.embLNg = t.get("embeddings.LayerNorm.weight", h)
	m.embLNb = t.get("embeddings.LayerNorm.bias", h)
	if t.err != nil {
		return nil, t.err
	}
	m.typeEmb0 = typ[:h]
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		var l layer
		// Q, K and V side by side: one product of width 3h.
		qkvW := make([]float32, 0, 3*h*h)
		qkvB := make([]float32, 0, 3*h)
		for _, n := range []string{"query", "key", "value"} {
			qkvW = append(qkvW, t.get(p+"attention.self."+n+".weight", h, h)...)
			qkvB = append(qkvB, t.get(p+"attention.self."+n+".bias", h)...)
		}
		if t.err != nil {
			return nil, t.err
		}
		// Fold the attention scale 1/√d into the query projection.
		scale := float32(1 / math.Sqrt(float64(h/cfg.NumAttentionHeads)))
		for i := range qkvW[:h*h] {
			qkvW[i] *= scale
		}
		for i := range qkvB[:h] {
			qkvB[i] *= scale
		}
		l.qkv = linear{w: gemm.PackT(nil, qkvW, 3*h, h, h), bias: qkvB}
		l.attnOut = t.linear(p+"attention.output.dense", h, h)
		l.ln1g = t.get(p+"attention.output.LayerNorm.weight", h)
		l.ln1b = t.get(p+"attention.output.LayerNorm.bias", h)
		l.inter = t.linear(p+"intermediate.dense", inter, h)
		l.out = t.linear(p+"output.dense", h, inter)
		l.ln2g = t.get(p+"output.LayerNorm.weight", h)
		l.ln2b = t.get(p+"output.LayerNorm.bias", h)
		if t.err != nil {
			return nil, t.err
		}
		m.layers = append(m.layers, l)
	}
	return m, nil
}

// tensors reads float32 tensors of a checkpoint, checking their shapes. The
// first error is kept in err; once it is set, reads return nothing.
type tensors struct {
	sf     *safetensors.File
	prefix string // "bert." for task models
	err    error
}

// get returns the tensor name, whose shape must be shape (a negative
// dimension matches any).
func (t *tensors) get(name string, shape ...int) []float32 {
	if t.err != nil {
		return nil
	}
	v, s, err := t.sf.Float32(t.prefix + name)
	if err != nil {
		t.err = err
		return nil
	}
	ok := len(s) == len(shape)
	for i := 0; ok && i < len(s); i++ {
		ok = shape[i] < 0 || s[i] == shape[i]
	}
	if !ok {
		t.err = fmt.Errorf("tensor %s has shape %v, want %v", name, s, shape)
		return nil
	}
	return v
}

// linear returns the layer name (tensors name.weight, out×in, and name.bias),
// its weight packed for gemm.
func (t *tensors) linear(name string, out, in int) linear {
	w, b := t.get(name+".weight", out, in), t.get(name+".bias", out)
	if t.err != nil {
		return linear{}
	}
	return linear{w: gemm.PackT(nil, w, out, in, in), bias: b}
}

// scratch is one worker's buffers, grown as needed.
type scratch struct {
	x, qkv, ctx, tmp, inter, scores []float32
	kp, vp                          gemm.Packed
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// forward runs the encoder on a batch of token id sequences and returns the
// last hidden states, all sequences' rows one after another (total × hidden).
// workers > 1 splits the matrix products across goroutines.
func (m *model) forward(seqs [][]int32, s *scratch, workers int) []float32 {
	h := m.cfg.HiddenSize
	heads := m.cfg.NumAttentionHeads
	d := h / heads
	total := 0
	maxLen := 0
	for _, q := range seqs {
		total += len(q)
		maxLen = max(maxLen, len(q))
	}
	s.x = grow(s.x, total*h)
	s.qkv = grow(s.qkv, total*3*h)
	s.ctx = grow(s.ctx, total*h)
	s.tmp = grow(s.tmp, total*h)
	s.inter = grow(s.inter, total*m.cfg.IntermediateSize)
	s.scores = grow(s.scores, maxLen*maxLen)
	x := s.x

	// Embeddings.
	row := 0
	for _, q := range seqs {
		for pos, id := range q {
			dst := x[row*h : (row+1)*h]
			we := m.wordEmb[int(id)*h : (int(id)+1)*h]
			pe := m.posEmb[pos*h : (pos+1)*h]
			for i := range dst {
				dst[i] = we[i] + pe[i] + m.typeEmb0[i]
			}
			row++
		}
	}
	eps := float32(m.cfg.LayerNormEps)
	layerNorm(x, h, m.embLNg, m.embLNb, eps)

	act := gelu
	if m.cfg.HiddenAct == "gelu_new" || m.cfg.HiddenAct == "gelu_pytorch_tanh" {
		act = geluTanh
	}
	for li := range m.layers {
		l := &m.layers[li]
		apply(s.qkv, x, total, l.qkv, workers)
		// Attention, one sequence and one head at a time.
		start := 0
		for _, q := range seqs {
			n := len(q)
			sc := s.scores[:n*n]
			for hd := 0; hd < heads; hd++ {
				qh := s.qkv[start*3*h+hd*d:]
				kh := s.qkv[start*3*h+h+hd*d:]
				vh := s.qkv[start*3*h+2*h+hd*d:]
				ch := s.ctx[start*h+hd*d:]
				if n <= smallAttention {
					attendSmall(sc, ch, qh, kh, vh, n, d, 3*h, h)
					continue
				}
				clear(sc)
				gemm.PackT(&s.kp, kh, n, d, 3*h)
				gemm.MulAdd(sc, n, qh, 3*h, n, &s.kp)
				for r := 0; r < n; r++ {
					softmax(sc[r*n : (r+1)*n])
				}
				for r := 0; r < n; r++ {
					clear(ch[r*h : r*h+d])
				}
				gemm.Pack(&s.vp, vh, n, d, 3*h)
				gemm.MulAdd(ch, h, sc, n, n, &s.vp)
			}
			start += n
		}
		apply(s.tmp, s.ctx, total, l.attnOut, workers)
		for i := range x {
			x[i] += s.tmp[i]
		}
		layerNorm(x, h, l.ln1g, l.ln1b, eps)
		apply(s.inter, x, total, l.inter, workers)
		act(s.inter)
		apply(s.tmp, s.inter, total, l.out, workers)
		for i := range x {
			x[i] += s.tmp[i]
		}
		layerNorm(x, h, l.ln2g, l.ln2b, eps)
	}
	return x
}

// smallAttention is the sequence length up to which attention is computed
// with plain loops rather than packed products (packing costs more than it
// saves on a label of a few tokens).
const smallAttention = 16

// attendSmall computes one head's attention for a short sequence: scores
// (n×n, in sc) = q·kᵀ (q already scaled), softmax by row, ctx = scores·v.
// q, k, v and ctx rows are d long with strides ld (q, k, v) and ldc (ctx).
func attendSmall(sc, ctx, q, k, v []float32, n, d, ld, ldc int) {
	for i := 0; i < n; i++ {
		qi := q[i*ld : i*ld+d]
		row := sc[i*n : (i+1)*n]
		for j := 0; j < n; j++ {
			kj := k[j*ld : j*ld+d]
			var dot float32
			for t, x := range qi {
				dot += x * kj[t]
			}
			row[j] = dot
		}
		softmax(row)
		ci := ctx[i*ldc : i*ldc+d]
		clear(ci)
		for j, p := range row {
			vj := v[j*ld : j*ld+d]
			for t, x := range vj {
				ci[t] += p * x
			}
		}
	}
}

// apply computes dst = src·Wᵀ + b for the rows of src.
func apply(dst, src []float32, rows int, l linear, workers int) {
	n, k := l.w.N, l.w.K
	dst = dst[:rows*n]
	for r := 0; r < rows; r++ {
		copy(dst[r*n:(r+1)*n], l.bias)
	}
	if workers > 1 {
		gemm.MulAddParallel(dst, n, src, k, rows, l.w, workers)
	} else {
		gemm.MulAdd(dst, n, src, k, rows, l.w)
	}
}
