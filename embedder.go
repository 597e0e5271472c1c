package noema

import "context"

// Embedder turns texts into vectors: the port search, semantic and the
// concept services use for meaning. Implementations live under embedding/
// (builtin, ollama, openai, bert); app.NewEmbedder builds the one a
// configuration names. Implementations are safe for concurrent use, and
// every one passes the conformance suite in embedding/embeddingtest.
//
// A network embedder that cannot be reached, times out, or keeps failing
// returns an error whose [ErrorCode] is [EUNAVAILABLE], so callers can
// degrade to fuzzy and full-text answers; input the server rejects (HTTP
// 400/422) is [EINVALID]; a cancelled context returns the context's error.
// Embed never returns partial results.
type Embedder interface {
	// Name identifies the backend and model, e.g. "builtin/ngram-v1",
	// "ollama/all-minilm", "openai/text-embedding-3-small". Vectors from
	// different names (or dimensions) must never be compared.
	Name() string
	// Dimension is the length of every vector. A network backend whose
	// model is not known in advance and not configured learns it from its
	// first answer and returns 0 until then.
	Dimension() int
	// Embed returns one vector per text, in the order of texts, each of
	// length Dimension. Vectors are L2-normalized, except that a text with
	// nothing to embed may yield the zero vector (vector.IsDegenerate
	// detects it). On error it returns no vectors at all.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// IsSpellingModel reports whether e captures spelling rather than meaning:
// its vectors bring together texts that share letters and word stems, not
// texts that mean the same (the builtin n-gram embedder says so through a
// method Spelling() bool returning true). Search weighs the ranking of such
// an embedder as a tie-breaker (package search, Tuning.SpellingWeight);
// every other embedder is taken for a meaning model.
func IsSpellingModel(e Embedder) bool {
	s, ok := e.(interface{ Spelling() bool })
	return ok && s.Spelling()
}
