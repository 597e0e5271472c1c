// Package embedding groups the implementations of noema.Embedder, the port
// that turns text into vectors. It holds no code: each backend is a
// subpackage that imports only the root and its own client, and
// app.NewEmbedder picks the one a configuration names.
//
//   - builtin (default): offline and deterministic hashed character n-grams,
//     384 dimensions. It captures spelling and morphology, not meaning.
//   - ollama: a local Ollama server (/api/embed), e.g. all-minilm,
//     nomic-embed-text.
//   - openai: the OpenAI embeddings API or any compatible server
//     (/v1/embeddings); the key comes from an environment variable.
//   - minilm (package bert): a BERT-family sentence encoder
//     (all-MiniLM-L6-v2, bge-small-en-v1.5) run in pure Go from a model
//     folder that `noema model pull` downloads.
//   - static: a table of word and word-piece vectors distilled from
//     Universal Sentence Encoder lite, in the binary (5.4 MB, 256
//     dimensions): a
//     meaning model that runs offline with no model files.
//
// Each backend checks at compile time that it implements noema.Embedder,
// and every one passes the shared conformance suite in embeddingtest.
// noema.Embedder states the error contract they share.
package embedding
